"""OneFlow serving: run saved nn.Graph models behind an inference server.

This package will hold the runtime that loads a saved graph and its weights,
and a server speaking the KServe v2 / Triton inference protocol (health,
model metadata, dynamic batching, metrics), started with
``bazel run //serving:server``. So far it holds only its version and the
oneflow version check.
"""

try:
    from oneflow._plugin import check_oneflow_requirement as _check
except ImportError as e:  # no oneflow, or one older than the plugin mechanism
    raise ImportError(f"oneflow-serving needs the oneflow package; install a oneflow wheel first ({e})") from e

from oneflow_serving._version import ONEFLOW_REQUIREMENT, __version__  # noqa: F401 (public names)

_check("oneflow-serving", ONEFLOW_REQUIREMENT)
