"""Classification losses used by the training recipes: label smoothing and soft targets."""

from flowvision.loss.cross_entropy import LabelSmoothingCrossEntropy, SoftTargetCrossEntropy

__all__ = ["LabelSmoothingCrossEntropy", "SoftTargetCrossEntropy"]
