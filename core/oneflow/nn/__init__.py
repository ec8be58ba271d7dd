"""Neural-network building blocks: ``Module`` and ``Parameter``, the containers, the layers,
``oneflow.nn.functional``, ``oneflow.nn.init`` and ``oneflow.nn.utils``.

The layer classes live in ``oneflow.nn.modules`` (one file per family, each
listing its names in ``__all__``) and are re-exported here.
``oneflow.nn.graph`` comes from the separately installed graph package; it is
found through this package's ``__path__``.
"""

import pkgutil as _pkgutil

# Plugins contribute subpackages of oneflow.nn (oneflow.nn.graph from the graph wheel).
__path__ = _pkgutil.extend_path(__path__, __name__)

from oneflow.nn import functional, init, modules, utils
from oneflow.nn.modules import *  # noqa: F403 - the layer classes, listed in modules.__all__
from oneflow.nn.parameter import Buffer, Parameter

__all__ = ["Buffer", "Parameter", "functional", "init", "modules", "utils", *modules.__all__]
