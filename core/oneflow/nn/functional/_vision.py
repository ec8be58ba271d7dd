"""Vision functions of ``torch.nn.functional`` whose signatures are not one op schema:
interpolate (and the deprecated upsample*), pad, grid_sample, affine_grid, fold and unfold.

Each maps its arguments onto the registry's ops (ops/defs/vision.cc, ops/defs/pad.cc), which
check shapes and sizes. The checks left here are those PyTorch makes in Python, with its
exception types (ValueError for most).
"""

import math
import warnings

from oneflow import _C

__all__ = [
    "affine_grid",
    "fold",
    "grid_sample",
    "interpolate",
    "pad",
    "unfold",
    "upsample",
    "upsample_bilinear",
    "upsample_nearest",
]

_INTERPOLATING = ("linear", "bilinear", "bicubic", "trilinear")
_MODES = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact")
# (mode, spatial dims) -> op; the op takes (input, output_size, input_size, [align_corners,] scales).
_UPSAMPLE_OPS = {
    ("nearest", 1): "_upsample_nearest1d",
    ("nearest", 2): "_upsample_nearest2d",
    ("nearest", 3): "_upsample_nearest3d",
    ("nearest-exact", 1): "_upsample_nearest_exact1d",
    ("nearest-exact", 2): "_upsample_nearest_exact2d",
    ("nearest-exact", 3): "_upsample_nearest_exact3d",
    ("linear", 1): "_upsample_linear1d",
    ("bilinear", 2): "_upsample_bilinear2d",
    ("bicubic", 2): "_upsample_bicubic2d",
    ("trilinear", 3): "_upsample_trilinear3d",
}
_NEEDS_DIMS = {"linear": 3, "bilinear": 4, "trilinear": 5}


def _spatial_list(value, dim, what, input, fmt):
    if isinstance(value, (list, tuple)):
        if len(value) != dim:
            raise ValueError(
                f"interpolate(): Input and {what} must have the same number of spatial dimensions, but got "
                f"input with spatial dimensions of {list(input.shape[2:])} and {what} of "
                f"{'shape ' if what == 'scale_factor' else ''}{tuple(value)}. Please provide input tensor in "
                f"(N, C, d1, d2, ...,dK) format and {what} in {fmt} format."
            )
        return list(value)
    return [value] * dim


def interpolate(
    input,
    size=None,
    scale_factor=None,
    mode="nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias=False,
):
    """Resamples ``input`` (N, C, *spatial) to ``size`` or by ``scale_factor``, as torch's."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "interpolate(): align_corners option can only be set with the interpolating modes: "
                f"linear | bilinear | bicubic | trilinear (got mode '{mode}')"
            )
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError(
            f"interpolate(): only one of size or scale_factor should be defined (got size={size}, "
            f"scale_factor={scale_factor} for input of shape {list(input.shape)})"
        )
    if size is not None:
        output_size = _spatial_list(size, dim, "output size", input, "(o1, o2, ...,oK)")
        scales = None
    elif scale_factor is not None:
        output_size = None
        scales = _spatial_list(scale_factor, dim, "scale_factor", input, "(s1, s2, ...,sK)")
    else:
        raise ValueError(
            f"interpolate(): either size or scale_factor should be defined (input of shape {list(input.shape)})"
        )
    if recompute_scale_factor and size is not None:
        raise ValueError("interpolate(): recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if output_size is None:
        # Without recompute_scale_factor the kernels sample with 1 / scale_factor itself.
        output_size = [math.floor(float(input.shape[i + 2]) * scales[i]) for i in range(dim)]
        if recompute_scale_factor:
            scales = None
    if antialias:
        if not (mode in ("bilinear", "bicubic") and input.dim() == 4):
            raise ValueError(
                "interpolate(): Anti-alias option is restricted to bilinear and bicubic modes and requires a "
                f"4-D tensor as input (got mode '{mode}' and input of shape {list(input.shape)})"
            )
        raise NotImplementedError("interpolate(): antialias=True is not supported")
    op = _UPSAMPLE_OPS.get((mode, dim))
    if op is not None:
        args = [input, output_size, list(input.shape)]
        if mode in _INTERPOLATING:
            args.append(bool(align_corners))
        args += scales if scales is not None else [None] * dim
        return getattr(_C.ops, op)(*args)
    if mode == "area" and 1 <= dim <= 3:
        return _C.ops._upsample_area(input, output_size, list(input.shape))
    if mode in _NEEDS_DIMS and input.dim() in (3, 4, 5):
        raise NotImplementedError(
            f"interpolate(): Got {input.dim()}D input, but {mode} mode needs {_NEEDS_DIMS[mode]}D input"
        )
    raise NotImplementedError(
        f"interpolate(): Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the "
        f"modes: {' | '.join(_MODES)} (got {mode})"
    )


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn(
        "`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn(
        "`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def pad(input, pad, mode="constant", value=None):
    """Pads ``input``: constant (any dims), reflect, replicate or circular (last 1-3 dims)."""
    return _C.ops._pad(input, pad, mode, value)


_GRID_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_GRID_PADDING = {"zeros": 0, "border": 1, "reflection": 2}


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Samples ``input`` at the normalized ``grid`` locations, as torch's."""
    if mode not in _GRID_MODES:
        raise ValueError(
            f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '{mode}'"
        )
    if padding_mode not in _GRID_PADDING:
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', "
            f"but got: '{padding_mode}'"
        )
    if align_corners is None:
        warnings.warn(
            "align_corners was not given: using align_corners=False (the default since PyTorch 1.3); pass it "
            "explicitly to silence this warning.",
            stacklevel=2,
        )
        align_corners = False
    return _C.ops.grid_sampler(input, grid, _GRID_MODES[mode], _GRID_PADDING[padding_mode], align_corners)


def affine_grid(theta, size, align_corners=None):
    """The sampling grid (N, H, W, 2) or (N, D, H, W, 3) of the affine maps ``theta``."""
    if align_corners is None:
        warnings.warn(
            "align_corners was not given: using align_corners=False (the default since PyTorch 1.3); pass it "
            "explicitly to silence this warning.",
            stacklevel=2,
        )
        align_corners = False
    if not theta.dtype.is_floating_point:
        raise ValueError(f"affine_grid(): Expected theta to have floating point type, but got {theta.dtype}")
    size = list(size)
    shape = tuple(theta.shape)
    if len(size) == 4:
        if theta.dim() != 3 or shape[-2] != 2 or shape[-1] != 3:
            raise ValueError(
                f"affine_grid(): Expected a batch of 2D affine matrices of shape Nx2x3 for size {tuple(size)}. "
                f"Got {list(shape)}."
            )
    elif len(size) == 5:
        if theta.dim() != 3 or shape[-2] != 3 or shape[-1] != 4:
            raise ValueError(
                f"affine_grid(): Expected a batch of 3D affine matrices of shape Nx3x4 for size {tuple(size)}. "
                f"Got {list(shape)}."
            )
    else:
        raise NotImplementedError(
            "affine_grid(): affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {tuple(size)}."
        )
    if min(size) <= 0:
        raise ValueError(f"affine_grid(): Expected non-zero, positive output size. Got {tuple(size)}")
    return _C.ops.affine_grid_generator(theta, size, align_corners)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding local blocks of (N, C, H, W) as columns (N, C * kh * kw, L) (im2col)."""
    if input.dim() < 3:
        # PyTorch reads the image dims before checking the rank, hence its IndexError here.
        raise IndexError(
            f"unfold(): expected a 3-D (C, H, W) or 4-D (N, C, H, W) input, got {input.dim()}-D {list(input.shape)}"
        )
    return _C.ops._im2col(input, kernel_size, dilation, padding, stride)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sums columns (N, C * kh * kw, L) back into (N, C, H, W) (col2im)."""
    return _C.ops._col2im(input, output_size, kernel_size, dilation, padding, stride)
