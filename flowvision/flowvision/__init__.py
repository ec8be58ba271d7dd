"""flowvision: computer vision models, transforms and datasets for OneFlow.

This package will hold the model zoo (ResNet, ViT, Swin, ConvNeXt and more,
with torchvision-compatible weight names), ``flowvision.transforms`` and
``flowvision.datasets``, built only on the public ``oneflow`` API. So far it
holds only its version and the oneflow version check.
"""

try:
    from oneflow._plugin import check_oneflow_requirement as _check
except ImportError as e:  # no oneflow, or one older than the plugin mechanism
    raise ImportError(f"flowvision needs the oneflow package; install a oneflow wheel first ({e})") from e

from flowvision._version import ONEFLOW_REQUIREMENT, __version__  # noqa: F401 (public names)

_check("flowvision", ONEFLOW_REQUIREMENT)
