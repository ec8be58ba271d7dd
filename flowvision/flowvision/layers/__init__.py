"""Building blocks shared by the flowvision models.

Stochastic depth (:class:`DropPath`), truncated-normal initialisation
(:func:`trunc_normal_`), a channels-first :class:`LayerNorm2d`, channel attention
blocks (:class:`SEModule`, :class:`SqueezeExcite`, :class:`EcaModule`), the
transformer :class:`Mlp` and :class:`PatchEmbed`, and small helpers
(:func:`to_2tuple`, :func:`make_divisible`). Submodule and parameter names follow
timm, so the models built from them load timm/torchvision state dicts unchanged.
"""

from flowvision.layers.attention import EcaModule, SEModule, SqueezeExcite
from flowvision.layers.blocks import Mlp, PatchEmbed
from flowvision.layers.drop import DropPath, drop_path
from flowvision.layers.helpers import make_divisible, to_1tuple, to_2tuple, to_3tuple, to_ntuple
from flowvision.layers.norm import LayerNorm2d
from flowvision.layers.weight_init import lecun_normal_, trunc_normal_

__all__ = [
    "DropPath",
    "EcaModule",
    "LayerNorm2d",
    "Mlp",
    "PatchEmbed",
    "SEModule",
    "SqueezeExcite",
    "drop_path",
    "lecun_normal_",
    "make_divisible",
    "to_1tuple",
    "to_2tuple",
    "to_3tuple",
    "to_ntuple",
    "trunc_normal_",
]
