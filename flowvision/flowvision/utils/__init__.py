"""Helpers around the model zoo: converting PyTorch checkpoints, and a weight EMA for training."""

from flowvision.utils.convert import convert_torch_checkpoint
from flowvision.utils.model_ema import ModelEmaV2

__all__ = ["ModelEmaV2", "convert_torch_checkpoint"]
