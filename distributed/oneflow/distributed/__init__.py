"""Multi-process OneFlow: Global Tensor and its runtime (the oneflow-distributed wheel).

This package will hold the launcher (``python -m oneflow.distributed.launch``),
the rendezvous store, the communication backends behind one interface (gloo
on CPU, NCCL on CUDA), placement and SBP execution with automatic boxing, and
DistributedDataParallel. It contributes the ``oneflow.distributed`` name to the
core package. So far it holds only its version and the oneflow version check.
"""

try:
    from oneflow._plugin import check_oneflow_requirement as _check
except ImportError as e:  # no oneflow, or one older than the plugin mechanism
    raise ImportError(f"oneflow-distributed needs the oneflow package; install a oneflow wheel first ({e})") from e

from oneflow.distributed._version import ONEFLOW_REQUIREMENT, __version__  # noqa: F401 (public names)

_check("oneflow-distributed", ONEFLOW_REQUIREMENT)
