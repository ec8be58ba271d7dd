"""Batch-level mixing: Mixup (Zhang et al. 2018) and CutMix (Yun et al. 2019).

Both take a batch ``(images, labels)`` and return ``(mixed images, soft targets)``: each image
is mixed with its neighbour in the batch (the batch rolled by one, as torchvision's v2
transforms do), with a ratio drawn from Beta(alpha, alpha) once per batch, and the one-hot
targets are mixed in the same proportion. They are meant to run on collated batches, e.g.
``images, targets = mixup(images, labels)`` in the training loop.
"""

from __future__ import annotations

import math

import oneflow as flow

__all__ = ["CutMix", "MixUp", "Mixup"]


def _sample_gamma(shape: float) -> float:
    """One Gamma(shape, 1) sample from oneflow's generator (Marsaglia and Tsang's method)."""
    boost = 1.0
    if shape < 1.0:
        # Gamma(a) = Gamma(a + 1) * U ** (1 / a)
        boost = float(flow.rand(1).item()) ** (1.0 / shape)
        shape += 1.0
    d = shape - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x = float(flow.randn(1).item())
        v = (1.0 + c * x) ** 3
        if v <= 0.0:
            continue
        u = float(flow.rand(1).item())
        if u > 0.0 and math.log(u) < 0.5 * x * x + d - d * v + d * math.log(v):
            return d * v * boost


def sample_beta(alpha: float, beta: float) -> float:
    """One Beta(alpha, beta) sample from oneflow's generator."""
    x = _sample_gamma(alpha)
    y = _sample_gamma(beta)
    return x / (x + y) if x + y > 0 else 0.5


class _BatchMix(flow.nn.Module):
    def __init__(self, alpha: float, num_classes: int | None, p: float, label_smoothing: float) -> None:
        super().__init__()
        name = type(self).__name__
        if not alpha > 0:
            raise ValueError(f"{name}: alpha should be positive, got {alpha}")
        if num_classes is not None and (not isinstance(num_classes, int) or num_classes < 1):
            raise ValueError(f"{name}: num_classes should be a positive int, got {num_classes!r}")
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"{name}: p should be a probability in [0, 1], got {p}")
        if not 0.0 <= label_smoothing < 1.0:
            raise ValueError(f"{name}: label_smoothing should be in [0, 1), got {label_smoothing}")
        self.alpha = float(alpha)
        self.num_classes = num_classes
        self.p = float(p)
        self.label_smoothing = float(label_smoothing)

    def _check(self, images, labels) -> flow.Tensor:
        """Validates the batch and returns the (smoothed) one-hot targets."""
        name = type(self).__name__
        if not isinstance(images, flow.Tensor) or not isinstance(labels, flow.Tensor):
            raise TypeError(f"{name}: expected (images, labels) oneflow tensors, got "
                            f"({type(images).__name__}, {type(labels).__name__})")
        if images.ndim != 4:
            raise ValueError(f"{name}: expected a batch of images of shape (N, C, H, W), got a {images.ndim}-D "
                             f"tensor of shape {tuple(images.shape)}")
        if not images.is_floating_point():
            raise TypeError(f"{name}: expected floating-point images, got {images.dtype} "
                            "(convert with ToTensor or ConvertImageDtype)")
        n = int(images.shape[0])
        if labels.ndim == 1 and not labels.is_floating_point():
            if self.num_classes is None:
                raise ValueError(f"{name}: num_classes is needed to one-hot encode integer labels")
            if int(labels.shape[0]) != n:
                raise ValueError(f"{name}: {int(labels.shape[0])} labels for {n} images")
            if n and (int(labels.min()) < 0 or int(labels.max()) >= self.num_classes):
                raise ValueError(f"{name}: labels should be in [0, {self.num_classes}), got values in "
                                 f"[{int(labels.min())}, {int(labels.max())}]")
            targets = flow.nn.functional.one_hot(labels.to(flow.int64), self.num_classes).to(images.dtype)
        elif labels.ndim == 2 and labels.is_floating_point():
            if int(labels.shape[0]) != n or (self.num_classes is not None and int(labels.shape[1]) != self.num_classes):
                raise ValueError(f"{name}: soft targets of shape {tuple(labels.shape)} do not fit {n} images"
                                 + (f" and {self.num_classes} classes" if self.num_classes else ""))
            targets = labels.to(images.dtype)
        else:
            raise ValueError(f"{name}: labels should be integer class indices of shape (N,) or soft targets of "
                             f"shape (N, num_classes), got {labels.dtype} of shape {tuple(labels.shape)}")
        if self.label_smoothing > 0:
            k = int(targets.shape[1])
            targets = targets * (1.0 - self.label_smoothing) + self.label_smoothing / k
        return targets

    def extra_repr(self) -> str:
        return (f"alpha={self.alpha}, num_classes={self.num_classes}, p={self.p}, "
                f"label_smoothing={self.label_smoothing}")


class Mixup(_BatchMix):
    """Mixup: ``lam * x + (1 - lam) * x_rolled`` for images and one-hot targets alike.

    Args:
        alpha: the Beta(alpha, alpha) parameter of the mixing ratio ``lam``.
        num_classes: classes for one-hot encoding integer labels.
        p: probability of mixing a batch; otherwise only the targets are made one-hot.
        label_smoothing: smoothing of the one-hot targets (``(1 - s) * onehot + s / num_classes``).

    ``forward(images, labels)`` takes float images (N, C, H, W) and integer labels (N,) or soft
    targets (N, num_classes), and returns the mixed images and (N, num_classes) float targets.
    """

    def __init__(self, alpha: float = 1.0, num_classes: int | None = None, p: float = 1.0,
                 label_smoothing: float = 0.0) -> None:
        super().__init__(alpha, num_classes, p, label_smoothing)

    def forward(self, images: flow.Tensor, labels: flow.Tensor) -> tuple[flow.Tensor, flow.Tensor]:
        targets = self._check(images, labels)
        if self.p < 1.0 and float(flow.rand(1).item()) >= self.p:
            return images, targets
        lam = sample_beta(self.alpha, self.alpha)
        mixed = images * lam + images.roll(1, 0) * (1.0 - lam)
        return mixed, targets * lam + targets.roll(1, 0) * (1.0 - lam)


MixUp = Mixup  # torchvision's v2 spelling


class CutMix(_BatchMix):
    """CutMix: pastes a random box of the rolled batch into each image; the targets are mixed
    by the area actually kept (``lam`` corrected for boxes clipped at the border).

    Arguments and ``forward`` as :class:`Mixup`.
    """

    def __init__(self, alpha: float = 1.0, num_classes: int | None = None, p: float = 1.0,
                 label_smoothing: float = 0.0) -> None:
        super().__init__(alpha, num_classes, p, label_smoothing)

    @staticmethod
    def get_box(lam: float, height: int, width: int) -> tuple[int, int, int, int]:
        """(x1, y1, x2, y2) of a box of area about (1 - lam) of the image, centred at a random pixel."""
        r_x = int(flow.randint(width, (1,)).item())
        r_y = int(flow.randint(height, (1,)).item())
        r = 0.5 * math.sqrt(1.0 - lam)
        r_w_half = int(r * width)
        r_h_half = int(r * height)
        x1 = max(r_x - r_w_half, 0)
        y1 = max(r_y - r_h_half, 0)
        x2 = min(r_x + r_w_half, width)
        y2 = min(r_y + r_h_half, height)
        return x1, y1, x2, y2

    def forward(self, images: flow.Tensor, labels: flow.Tensor) -> tuple[flow.Tensor, flow.Tensor]:
        targets = self._check(images, labels)
        if self.p < 1.0 and float(flow.rand(1).item()) >= self.p:
            return images, targets
        lam = sample_beta(self.alpha, self.alpha)
        h, w = int(images.shape[-2]), int(images.shape[-1])
        x1, y1, x2, y2 = self.get_box(lam, h, w)
        out = images.clone()
        out[..., y1:y2, x1:x2] = images.roll(1, 0)[..., y1:y2, x1:x2]
        lam = 1.0 - (x2 - x1) * (y2 - y1) / (w * h)
        return out, targets * lam + targets.roll(1, 0) * (1.0 - lam)
