"""DeiT, from "Training data-efficient image transformers & distillation through attention"
(Touvron et al., 2020).

The plain DeiT models are Vision Transformers (:class:`VisionTransformer`); the
distilled ones add a distillation token next to the class token, with its own head
(``dist_token``, ``head_dist``). Names follow timm (``deit_tiny_patch16_224``,
``deit_base_distilled_patch16_224``...).
"""

from __future__ import annotations

import oneflow as flow
from flowvision.layers import trunc_normal_
from flowvision.models._weights import load_pretrained
from flowvision.models.registry import ModelCreator
from flowvision.models.vision_transformer import VisionTransformer
from oneflow import nn

__all__ = [
    "VisionTransformerDistilled",
    "deit_base_distilled_patch16_224",
    "deit_base_patch16_224",
    "deit_small_distilled_patch16_224",
    "deit_small_patch16_224",
    "deit_tiny_distilled_patch16_224",
    "deit_tiny_patch16_224",
]


class VisionTransformerDistilled(VisionTransformer):
    """A Vision Transformer with a distillation token and a second head (``head_dist``).

    In eval mode (and in training unless :meth:`set_distilled_training` turned it on)
    the output is the mean of the two heads' logits; with distilled training on, a
    training forward returns ``(class_logits, distillation_logits)`` so that the second
    can be trained against a teacher. Takes the arguments of :class:`VisionTransformer`
    (``global_pool`` must be ``"token"``).
    """

    def __init__(self, *args, **kwargs) -> None:
        if kwargs.get("global_pool", "token") != "token" or not kwargs.get("class_token", True):
            raise ValueError("VisionTransformerDistilled: needs global_pool='token' and a class token")
        super().__init__(*args, **kwargs)
        self.num_prefix_tokens = 2
        embed_dim = self.embed_dim
        self.dist_token = nn.Parameter(flow.zeros(1, 1, embed_dim))
        self.pos_embed = nn.Parameter(flow.zeros(1, self.patch_embed.num_patches + 2, embed_dim))
        self.head_dist = nn.Linear(embed_dim, self.num_classes) if self.num_classes > 0 else nn.Identity()
        self.distilled_training = False
        trunc_normal_(self.pos_embed, std=0.02)
        trunc_normal_(self.dist_token, std=0.02)
        trunc_normal_(self.cls_token, std=0.02)
        if isinstance(self.head_dist, nn.Linear):
            trunc_normal_(self.head_dist.weight, std=0.02)
            nn.init.zeros_(self.head_dist.bias)

    def set_distilled_training(self, enable: bool = True) -> None:
        """Makes a training forward return both heads' logits (see the class docstring)."""
        self.distilled_training = enable

    def _prefix_tokens(self, x: flow.Tensor) -> list[flow.Tensor]:
        n = x.shape[0]
        return [self.cls_token.expand(n, -1, -1), self.dist_token.expand(n, -1, -1)]

    def forward_head(self, x: flow.Tensor, pre_logits: bool = False):
        """Both heads: averaged logits, or the pair in distilled training."""
        x, x_dist = x[:, 0], x[:, 1]
        if pre_logits:
            return (x + x_dist) / 2
        x = self.head(x)
        x_dist = self.head_dist(x_dist)
        if self.distilled_training and self.training:
            return x, x_dist
        return (x + x_dist) / 2


def _deit(name: str, pretrained: bool, progress: bool, distilled: bool, defaults: dict, kwargs: dict):
    cls = VisionTransformerDistilled if distilled else VisionTransformer
    model = cls(**{**defaults, **kwargs})
    if pretrained:
        load_pretrained(model, name, progress)
    return model


_TINY = dict(patch_size=16, embed_dim=192, depth=12, num_heads=3)
_SMALL = dict(patch_size=16, embed_dim=384, depth=12, num_heads=6)
_BASE = dict(patch_size=16, embed_dim=768, depth=12, num_heads=12)


@ModelCreator.register_model
def deit_tiny_patch16_224(pretrained: bool = False, progress: bool = True, **kwargs) -> VisionTransformer:
    """DeiT-Ti: a ViT of width 192, 12 blocks of 3 heads (5.7M parameters)."""
    return _deit("deit_tiny_patch16_224", pretrained, progress, False, _TINY, kwargs)


@ModelCreator.register_model
def deit_small_patch16_224(pretrained: bool = False, progress: bool = True, **kwargs) -> VisionTransformer:
    """DeiT-S: a ViT of width 384, 12 blocks of 6 heads (22M parameters)."""
    return _deit("deit_small_patch16_224", pretrained, progress, False, _SMALL, kwargs)


@ModelCreator.register_model
def deit_base_patch16_224(pretrained: bool = False, progress: bool = True, **kwargs) -> VisionTransformer:
    """DeiT-B: a ViT of width 768, 12 blocks of 12 heads (86.6M parameters)."""
    return _deit("deit_base_patch16_224", pretrained, progress, False, _BASE, kwargs)


@ModelCreator.register_model
def deit_tiny_distilled_patch16_224(pretrained: bool = False, progress: bool = True,
                                    **kwargs) -> VisionTransformerDistilled:
    """DeiT-Ti with a distillation token (5.9M parameters)."""
    return _deit("deit_tiny_distilled_patch16_224", pretrained, progress, True, _TINY, kwargs)


@ModelCreator.register_model
def deit_small_distilled_patch16_224(pretrained: bool = False, progress: bool = True,
                                     **kwargs) -> VisionTransformerDistilled:
    """DeiT-S with a distillation token (22.4M parameters)."""
    return _deit("deit_small_distilled_patch16_224", pretrained, progress, True, _SMALL, kwargs)


@ModelCreator.register_model
def deit_base_distilled_patch16_224(pretrained: bool = False, progress: bool = True,
                                    **kwargs) -> VisionTransformerDistilled:
    """DeiT-B with a distillation token (87.3M parameters)."""
    return _deit("deit_base_distilled_patch16_224", pretrained, progress, True, _BASE, kwargs)
