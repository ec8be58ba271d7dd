"""``import oneflow.boxing``: OneFlow's module path of :mod:`oneflow.distributed.boxing`.

The same module object under both names, so ``oneflow.boxing`` (the attribute the core resolves
through this package's entry point) and ``import oneflow.boxing`` never differ. It lives in this
package's part of the ``oneflow`` namespace, found through ``oneflow.__path__``.
"""

import sys

from oneflow.distributed import boxing as _impl

sys.modules[__name__] = _impl
