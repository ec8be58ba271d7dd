"""Parallel training wrappers (the oneflow-distributed package): :class:`DistributedDataParallel`.

``oneflow.nn.parallel`` is reached as ``oneflow.nn.parallel`` after ``import oneflow``; the core
package finds it through ``oneflow.nn.__path__``.
"""

from oneflow.nn.parallel.distributed import DistributedDataParallel

__all__ = ["DistributedDataParallel"]
