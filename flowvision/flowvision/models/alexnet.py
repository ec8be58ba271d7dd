"""AlexNet in torchvision's layout (the single-tower variant of "One weird trick...").

Five convolutions in ``features`` (indices 0, 3, 6, 8, 10), adaptive pooling to 6x6 and a
three-layer ``classifier`` with dropout (linear layers at indices 1, 4, 6). Layers keep their
default initialization, as in torchvision.
"""

from __future__ import annotations

import oneflow as flow
from flowvision.models._weights import load_pretrained
from flowvision.models.registry import ModelCreator
from oneflow import nn

__all__ = ["AlexNet", "alexnet"]


class AlexNet(nn.Module):
    """AlexNet.

    Args:
        num_classes: outputs of the classifier.
        dropout: dropout probability before the first two linear layers.
    """

    def __init__(self, num_classes: int = 1000, dropout: float = 0.5) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, kernel_size=11, stride=4, padding=2),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(64, 192, kernel_size=5, padding=2),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(192, 384, kernel_size=3, padding=1),
            nn.ReLU(inplace=True),
            nn.Conv2d(384, 256, kernel_size=3, padding=1),
            nn.ReLU(inplace=True),
            nn.Conv2d(256, 256, kernel_size=3, padding=1),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
        )
        self.avgpool = nn.AdaptiveAvgPool2d((6, 6))
        self.classifier = nn.Sequential(
            nn.Dropout(p=dropout),
            nn.Linear(256 * 6 * 6, 4096),
            nn.ReLU(inplace=True),
            nn.Dropout(p=dropout),
            nn.Linear(4096, 4096),
            nn.ReLU(inplace=True),
            nn.Linear(4096, num_classes),
        )

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Classifies a batch ``(N, 3, H, W)`` (H, W >= 63) into logits ``(N, num_classes)``."""
        x = self.avgpool(self.features(x))
        return self.classifier(flow.flatten(x, 1))


@ModelCreator.register_model
def alexnet(pretrained: bool = False, progress: bool = True, **kwargs) -> AlexNet:
    """AlexNet from "ImageNet Classification with Deep Convolutional Neural Networks"
    (Krizhevsky et al., 2012), as revised in "One weird trick for parallelizing convolutional
    neural networks".

    Args:
        pretrained: load ImageNet weights from the flowvision cache.
        progress: unused (nothing is downloaded); kept for torchvision compatibility.
        **kwargs: passed to :class:`AlexNet` (``num_classes=``, ``dropout=``).
    """
    model = AlexNet(**kwargs)
    if pretrained:
        load_pretrained(model, "alexnet", progress)
    return model
