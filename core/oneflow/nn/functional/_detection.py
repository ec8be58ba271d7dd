"""``nn.functional.deform_conv2d``: deformable convolution, as OneFlow's functional API names it."""

from oneflow._detection_ops import deform_conv2d

__all__ = ["deform_conv2d"]
