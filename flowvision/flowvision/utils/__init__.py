"""Helpers around the model zoo: converting PyTorch checkpoints."""

from flowvision.utils.convert import convert_torch_checkpoint

__all__ = ["convert_torch_checkpoint"]
