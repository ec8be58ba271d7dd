"""``import oneflow.sbp``: OneFlow's module path of :mod:`oneflow.distributed.sbp`.

The same module object under both names, so ``oneflow.sbp`` (the attribute the core resolves
through this package's entry point) and ``import oneflow.sbp`` never differ. It lives in this
package's part of the ``oneflow`` namespace, found through ``oneflow.__path__``.
"""

import sys

from oneflow.distributed import sbp as _impl

sys.modules[__name__] = _impl
