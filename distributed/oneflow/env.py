"""``import oneflow.env``: OneFlow's module path of :mod:`oneflow.distributed.env`.

The same module object under both names, so ``oneflow.env`` (the attribute the core resolves
through this package's entry point) and ``import oneflow.env`` never differ. It lives in this
package's part of the ``oneflow`` namespace, found through ``oneflow.__path__``.
"""

import sys

from oneflow.distributed import env as _impl

sys.modules[__name__] = _impl
