"""Shared inputs and conversions for the flowvision.transforms tests (transforms_*_test.py)."""

import numpy as np

import oneflow as flow

RNG = np.random.default_rng(1234)


def rgb_array(h=13, w=17, c=3, seed=0):
    return np.random.default_rng(seed).integers(0, 256, (h, w, c), dtype=np.uint8)


def chw(arr):
    """A uint8 (C, H, W) oneflow tensor from an (H, W, C) array."""
    return flow.from_numpy(np.ascontiguousarray(arr.transpose(2, 0, 1)))


def npy(x):
    if isinstance(x, flow.Tensor):
        return x.numpy()
    return np.asarray(x)


def pil_chw(img):
    a = np.asarray(img)
    return a[None] if a.ndim == 2 else a.transpose(2, 0, 1)
