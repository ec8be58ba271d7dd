"""Neural-network building blocks: ``Module`` and ``Parameter``, the containers, the layers,
``oneflow.nn.functional``, ``oneflow.nn.init`` and ``oneflow.nn.utils``.

The layer classes live in ``oneflow.nn.modules`` (one file per family, each
listing its names in ``__all__``) and are re-exported here.
``oneflow.nn.graph`` comes from the separately installed graph package and
``oneflow.nn.parallel`` (DistributedDataParallel) from the oneflow-distributed
package; they are found through this package's ``__path__``.
"""

import pkgutil as _pkgutil

# Plugins contribute subpackages of oneflow.nn (oneflow.nn.graph from the graph wheel,
# oneflow.nn.parallel from the oneflow-distributed wheel).
__path__ = _pkgutil.extend_path(__path__, __name__)

from oneflow.nn import functional, init, modules, parameter, utils
from oneflow.nn.modules import *  # noqa: F403 - the layer classes, listed in modules.__all__
from oneflow.nn.parameter import Buffer, Parameter

# PyTorch also names the lazy modules' placeholders under torch.nn.parameter.
parameter.UninitializedParameter = modules.lazy.UninitializedParameter
parameter.UninitializedBuffer = modules.lazy.UninitializedBuffer
parameter.is_lazy = modules.lazy.is_lazy

__all__ = ["Buffer", "Parameter", "functional", "init", "modules", "utils", *modules.__all__]


def __getattr__(name: str):
    # `oneflow.nn.parallel` without importing it first, as in torch: a plugin (the
    # oneflow-distributed package) declares it (see oneflow._plugin), and it is imported on first
    # use so that `import oneflow` neither needs nor loads the plugin.
    from oneflow import _plugin

    value = _plugin.plugin_attribute(__name__, name, None)
    if value is not None:
        return value
    if name == "parallel":
        raise ImportError(
            "oneflow.nn.parallel (DistributedDataParallel) is provided by the oneflow-distributed "
            "package, which is not installed. Install the oneflow-distributed wheel (pip install "
            "oneflow-distributed)."
        )
    raise AttributeError(f"module 'oneflow.nn' has no attribute '{name}'")
