"""flowvision: computer vision models, transforms and datasets for OneFlow.

The model zoo (``flowvision.models``: ResNet, ViT, Swin, ConvNeXt and 100 more
constructors with torchvision's / timm's parameter names, built by name through
``ModelCreator``), ``flowvision.transforms``, ``flowvision.datasets``, building
blocks (``flowvision.layers``), losses, LR schedulers and ``flowvision.utils``
(ModelEmaV2, converting PyTorch checkpoints), built only on the public
``oneflow`` API. Pillow is needed only for PIL images.
"""

try:
    from oneflow._plugin import check_oneflow_requirement as _check
except ImportError as e:  # no oneflow, or one older than the plugin mechanism
    raise ImportError(f"flowvision needs the oneflow package; install a oneflow wheel first ({e})") from e

from flowvision._version import ONEFLOW_REQUIREMENT, __version__  # noqa: F401 (public names)

_check("flowvision", ONEFLOW_REQUIREMENT)

from flowvision import datasets, layers, loss, models, scheduler, transforms, utils  # noqa: E402

__all__ = ["datasets", "layers", "loss", "models", "scheduler", "transforms", "utils"]
