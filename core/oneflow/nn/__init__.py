"""Neural-network building blocks: ``oneflow.nn.functional`` (and, later, Module and the layers).

``oneflow.nn.graph`` comes from the separately installed graph package; it is
found through this package's ``__path__``.
"""

import pkgutil as _pkgutil

# Plugins contribute subpackages of oneflow.nn (oneflow.nn.graph from the graph wheel).
__path__ = _pkgutil.extend_path(__path__, __name__)

from oneflow.nn import functional

__all__ = ["functional"]
