"""``import oneflow.comm``: OneFlow's module path of :mod:`oneflow.distributed.comm`.

The same module object under both names, so ``oneflow.comm`` (the attribute the core resolves
through this package's entry point) and ``import oneflow.comm`` never differ. It lives in this
package's part of the ``oneflow`` namespace, found through ``oneflow.__path__``.
"""

import sys

from oneflow.distributed import comm as _impl

sys.modules[__name__] = _impl
