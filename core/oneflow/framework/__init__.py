"""``oneflow.framework``: the module paths under which OneFlow code imports framework objects.

OneFlow's own ``framework`` package holds its internals; user code and the libraries built on
OneFlow import a few names from it (``from oneflow.framework.tensor import Tensor``). Those paths
are kept here, each a thin alias of the public object.
"""

from oneflow.framework import check_point_v2, tensor

__all__ = ["check_point_v2", "tensor"]
