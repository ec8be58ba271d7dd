"""Parity rows for the vision ops (ops/defs/vision.cc, ops/defs/pad.cc) through their
torch.nn.functional forms: interpolate in every mode, pad in every mode, pixel_shuffle,
unfold / fold, grid_sample and affine_grid; forward and backward (input, grid and theta
gradients), float32 and float64, contiguous and transposed layouts. Arguments are drawn from a
seeded generator (sizes, non-integer scale factors, align_corners both ways), so every run
checks the same cases. test_errors checks bad arguments against torch's exception types."""

import random

import numpy as np
import pytest
import torch
from parity import OpCase, run_case

import oneflow as flow

ALL = ("float32", "float64", "int64")
_RNG = random.Random(20240611)

_NEAREST = {1: "_upsample_nearest1d", 2: "_upsample_nearest2d", 3: "_upsample_nearest3d"}
_EXACT = {1: "_upsample_nearest_exact1d", 2: "_upsample_nearest_exact2d", 3: "_upsample_nearest_exact3d"}
_LINEAR = {"linear": "_upsample_linear1d", "bilinear": "_upsample_bilinear2d",
           "trilinear": "_upsample_trilinear3d", "bicubic": "_upsample_bicubic2d"}
_DIMS = {"linear": 1, "bilinear": 2, "trilinear": 3, "bicubic": 2}


def _op_for(mode, nd):
    if mode == "nearest":
        return _NEAREST[nd]
    if mode == "nearest-exact":
        return _EXACT[nd]
    if mode == "area":
        return "_upsample_area"
    return _LINEAR[mode]


def _interp(**kw):
    return lambda m, x: m.nn.functional.interpolate(x, **kw)


def _random_spatial(nd, lo=1, hi=7):
    return tuple(_RNG.randint(lo, hi) for _ in range(nd))


def _interp_rows():
    rows = []
    for mode in ("nearest", "nearest-exact", "area", "linear", "bilinear", "bicubic", "trilinear"):
        dims = (1, 2, 3) if mode in ("nearest", "nearest-exact", "area") else (_DIMS[mode],)
        aligns = (False, True) if mode in _LINEAR else (None,)
        for nd in dims:
            op = _op_for(mode, nd)
            for align in aligns:
                extra = {} if align is None else {"align_corners": align}
                tag = f"{mode}{nd}d" + ("" if align is None else f"_ac{int(align)}")
                # Random output sizes (up and down), a few inputs.
                shapes = [((_RNG.randint(1, 2), _RNG.randint(1, 3)) + _random_spatial(nd, 2, 6),) for _ in range(2)]
                size = _random_spatial(nd, 1, 9)
                rows.append(OpCase(ops=(op,), name=f"interp_{tag}_size", fn=_interp(size=size, mode=mode, **extra),
                                   shapes=shapes))
                rows.append(OpCase(ops=(op,), name=f"interp_{tag}_int_size",
                                   fn=_interp(size=_RNG.randint(1, 8), mode=mode, **extra), shapes=shapes[:1]))
                # Non-integer scale factors: the kernels sample with 1 / scale, unless recomputed.
                scale = tuple(round(_RNG.uniform(0.4, 3.2), 3) for _ in range(nd))
                for rec in (None, True, False):
                    rows.append(OpCase(ops=(op,), name=f"interp_{tag}_scale_rec{rec}",
                                       fn=_interp(scale_factor=scale, mode=mode, recompute_scale_factor=rec, **extra),
                                       shapes=shapes))
                rows.append(OpCase(ops=(op,), name=f"interp_{tag}_scalar_scale",
                                   fn=_interp(scale_factor=round(_RNG.uniform(1.1, 2.9), 2), mode=mode, **extra),
                                   shapes=shapes[:1]))
                # Exact factors (PyTorch's shortcuts for out == in and out == 2 * in).
                rows.append(OpCase(ops=(op,), name=f"interp_{tag}_x2", fn=_interp(scale_factor=2, mode=mode, **extra),
                                   shapes=shapes[:1]))
                rows.append(OpCase(ops=(op,), name=f"interp_{tag}_x1",
                                   fn=_interp(size=shapes[0][0][2:], mode=mode, **extra), shapes=shapes[:1]))
                rows.append(OpCase(ops=(op,), name=f"interp_{tag}_to1", fn=_interp(size=1, mode=mode, **extra),
                                   shapes=shapes[:1]))
    # Batches of zero, half precision, the deprecated forms.
    rows.append(OpCase(ops=("_upsample_bilinear2d",), name="interp_empty_batch",
                       fn=_interp(size=(3, 5), mode="bilinear"), shapes=[((0, 2, 4, 4),)]))
    rows.append(OpCase(ops=("_upsample_nearest2d",), name="interp_half",
                       fn=_interp(scale_factor=1.5, mode="nearest"), shapes=[((1, 2, 3, 4),)],
                       dtypes=("float16", "bfloat16")))
    rows.append(OpCase(ops=("_upsample_nearest2d", "_upsample_nearest_exact3d"), name="interp_nearest_uint8",
                       fn=lambda m, x: [m.nn.functional.interpolate(x, scale_factor=1.7),
                                        m.nn.functional.interpolate(x[None], size=(2, 5, 3), mode="nearest-exact")],
                       shapes=[((1, 2, 3, 4),)], dtypes=("uint8",), int_domain=(0, 255)))
    rows.append(OpCase(ops=("_upsample_bilinear2d",), name="interp_half_bilinear",
                       fn=_interp(size=(5, 3), mode="bilinear"), shapes=[((1, 2, 3, 4),)], dtypes=("float16",),
                       rtol=1e-2, atol=1e-2))
    rows.append(OpCase(ops=("_upsample_bilinear2d",), name="upsample",
                       fn=lambda m, x: m.nn.functional.upsample(x, scale_factor=1.7, mode="bilinear"),
                       shapes=[((1, 2, 3, 4),)]))
    rows.append(OpCase(ops=("_upsample_nearest2d",), name="upsample_nearest",
                       fn=lambda m, x: m.nn.functional.upsample_nearest(x, size=(5, 7)), shapes=[((1, 2, 3, 4),)]))
    rows.append(OpCase(ops=("_upsample_bilinear2d",), name="upsample_bilinear",
                       fn=lambda m, x: m.nn.functional.upsample_bilinear(x, scale_factor=2.5),
                       shapes=[((1, 2, 3, 4),)]))
    # Bad arguments torch refuses: the same exception types.
    for name, kw, shape in [
        ("scale_zero", {"scale_factor": 0.0}, (1, 2, 4, 4)),
        ("scale_negative", {"scale_factor": -1.5, "mode": "bilinear"}, (1, 2, 4, 4)),
        ("scale_too_small", {"scale_factor": 0.1}, (1, 2, 4, 4)),
        ("size_zero", {"size": (0, 3)}, (1, 2, 4, 4)),
        ("both", {"size": 3, "scale_factor": 2.0}, (1, 2, 4, 4)),
        ("neither", {}, (1, 2, 4, 4)),
        ("align_nearest", {"scale_factor": 2.0, "align_corners": True}, (1, 2, 4, 4)),
        ("align_area", {"size": 2, "mode": "area", "align_corners": False}, (1, 2, 4)),
        ("bilinear_3d", {"size": 3, "mode": "bilinear"}, (1, 2, 4)),
        ("linear_4d", {"size": 3, "mode": "linear"}, (1, 2, 4, 4)),
        ("trilinear_4d", {"size": 3, "mode": "trilinear"}, (1, 2, 4, 4)),
        ("bicubic_5d", {"size": 3, "mode": "bicubic"}, (1, 2, 4, 4, 4)),
        ("nearest_2d", {"size": 3}, (2, 4)),
        ("bad_mode", {"size": 3, "mode": "lanczos3"}, (1, 2, 4, 4)),
        ("size_length", {"size": (2, 3, 4)}, (1, 2, 4, 4)),
        ("scale_length", {"scale_factor": (2.0,)}, (1, 2, 4, 4)),
        ("recompute_with_size", {"size": 3, "recompute_scale_factor": True}, (1, 2, 4, 4)),
        ("antialias_nearest", {"size": 3, "antialias": True}, (1, 2, 4, 4)),
        ("empty_channels", {"size": 3, "mode": "bilinear"}, (1, 0, 4, 4)),
        ("empty_spatial", {"size": 3}, (1, 2, 0, 4)),
    ]:
        rows.append(OpCase(ops=("_upsample_nearest2d",), name=f"interp_bad_{name}", fn=_interp(**kw),
                           shapes=[(shape,)], grad=False))
    return rows


def _pad(pad, mode="constant", value=None):
    return lambda m, x: m.nn.functional.pad(x, pad, mode=mode, value=value)


def _random_pad(k, lo, hi):
    return tuple(_RNG.randint(lo, hi) for _ in range(2 * k))


def _pad_rows():
    rows = [
        OpCase(ops=("_pad", "constant_pad_nd"), name="pad_constant", fn=_pad((1, 2)), shapes=[((3,),), ((2, 3),)],
               dtypes=ALL),
        OpCase(ops=("_pad", "constant_pad_nd"), name="pad_constant_value", fn=_pad((1, 0, 2, 1), value=-1.5),
               shapes=[((2, 3),), ((2, 3, 4),)], dtypes=ALL),
        OpCase(ops=("_pad", "constant_pad_nd"), name="pad_constant_all_dims", fn=_pad((1, 1, 0, 2, 1, 0, 2, 1)),
               shapes=[((2, 3, 2, 2),)]),
        OpCase(ops=("_pad", "constant_pad_nd"), name="pad_constant_negative", fn=_pad((-1, 2, 1, -2)),
               shapes=[((3, 4, 5),)]),
        OpCase(ops=("_pad", "constant_pad_nd"), name="pad_constant_crop_all", fn=_pad((-3, -1)), shapes=[((2, 4),)]),
        OpCase(ops=("_pad", "constant_pad_nd"), name="pad_constant_empty", fn=_pad((1, 1)), shapes=[((0, 2),)]),
        OpCase(ops=("_pad", "constant_pad_nd"), name="pad_constant_scalar", fn=_pad(()), shapes=[((),)]),
        OpCase(ops=("constant_pad_nd",), name="constant_pad_nd",
               fn=lambda m, x: m.constant_pad_nd(x, (1, -1, 2, 0), 0.5), shapes=[((2, 3, 4),)]),
        OpCase(ops=("_pad", "constant_pad_nd"), name="pad_constant_bad_odd", fn=_pad((1, 2, 3)), shapes=[((2, 3),)]),
        OpCase(ops=("_pad", "constant_pad_nd"), name="pad_constant_bad_long", fn=_pad((1,) * 6), shapes=[((2, 3),)]),
        OpCase(ops=("_pad", "constant_pad_nd"), name="pad_constant_bad_negative", fn=_pad((-3, -2)),
               shapes=[((2, 4),)]),
    ]
    ops = {"reflect": "_reflection_pad", "replicate": "_replication_pad", "circular": "_pad_circular"}
    for mode, op in ops.items():
        for k in (1, 2, 3):
            # Batched and unbatched inputs; sizes above the padding for reflect and circular.
            shapes = [((2, 2) + _random_spatial(k, 4, 6),), ((3,) + _random_spatial(k, 4, 6),)]
            for i in range(2):
                pad = _random_pad(k, 0, 3)
                rows.append(OpCase(ops=("_pad", op), name=f"pad_{mode}{k}d_{i}", fn=_pad(pad, mode), shapes=shapes))
            rows.append(OpCase(ops=("_pad", op), name=f"pad_{mode}{k}d_negative", fn=_pad(_random_pad(k, -2, 3), mode),
                               shapes=shapes[:1]))
        rows.append(OpCase(ops=("_pad", op), name=f"pad_{mode}_int", fn=_pad((2, 1), mode), shapes=[((2, 3, 4),)],
                           dtypes=("int64", "int32")))
        rows.append(OpCase(ops=("_pad", op), name=f"pad_{mode}_value0", fn=_pad((2, 1), mode, 0.0),
                           shapes=[((2, 3, 4),)]))
        rows.append(OpCase(ops=("_pad", op), name=f"pad_{mode}_half", fn=_pad((2, 1, 1, 0), mode),
                           shapes=[((2, 3, 4),)], dtypes=("float16", "bfloat16")))
        for name, pad, shape in [("value", (1, 1), (1, 2, 4)), ("rank", (1, 1), (1, 2, 4, 4)),
                                 ("rank1", (1, 1), (4,)), ("len8", (1,) * 8, (1, 2, 3, 3, 3)),
                                 ("too_big", (4, 1), (1, 2, 4)), ("too_big_h", (1, 1, 5, 1), (1, 2, 4, 4)),
                                 ("crop_all", (-3, -1), (1, 2, 4)), ("empty", (1, 1), (1, 0, 4))]:
            fn = _pad(pad, mode, 1.0) if name == "value" else _pad(pad, mode)
            rows.append(OpCase(ops=("_pad", op), name=f"pad_{mode}_bad_{name}", fn=fn, shapes=[(shape,)], grad=False))
    rows.append(OpCase(ops=("_pad",), name="pad_bad_mode", fn=_pad((1, 1), "wrap"), shapes=[((1, 2, 4),)]))
    rows.append(OpCase(ops=("_pad", "_reflection_pad"), name="pad_reflect_double_backward",
                       fn=lambda m, x: _double_backward(m, x, lambda y: m.nn.functional.pad(y, (2, 1), "reflect")),
                       shapes=[((2, 3, 4),)], noncontiguous=False))
    return rows


def _double_backward(m, x, f):
    """The gradient of sum(f(x) ** 2) taken with create_graph, so that it is differentiable again."""
    y = f(x)
    (g,) = m.autograd.grad((y * y).sum(), x, create_graph=True)
    return g


def _shape_rows():
    ps = lambda r: lambda m, x: m.nn.functional.pixel_shuffle(x, r)
    pu = lambda r: lambda m, x: m.nn.functional.pixel_unshuffle(x, r)
    rows = [
        OpCase(ops=("pixel_shuffle",), fn=ps(2), shapes=[((2, 8, 3, 3),), ((12, 2, 3),), ((2, 1, 9, 2, 3),)],
               dtypes=ALL),
        OpCase(ops=("pixel_shuffle",), name="pixel_shuffle_3", fn=lambda m, x: m.pixel_shuffle(x, 3),
               shapes=[((1, 18, 2, 1),)]),
        OpCase(ops=("pixel_shuffle",), name="pixel_shuffle_bad", fn=ps(2), shapes=[((2, 6, 3, 3),), ((8, 3),)]),
        OpCase(ops=("pixel_shuffle",), name="pixel_shuffle_bad_factor", fn=ps(0), shapes=[((2, 8, 3, 3),)]),
        OpCase(ops=("pixel_unshuffle",), fn=pu(2), shapes=[((2, 2, 4, 6),), ((3, 2, 4),), ((2, 1, 1, 2, 2),)],
               dtypes=ALL),
        OpCase(ops=("pixel_unshuffle",), name="pixel_unshuffle_bad", fn=pu(2),
               shapes=[((2, 2, 5, 6),), ((2, 2, 4, 5),), ((4, 6),)]),
        OpCase(ops=("pixel_unshuffle",), name="pixel_unshuffle_roundtrip",
               fn=lambda m, x: m.pixel_shuffle(m.pixel_unshuffle(x, 3), 3), shapes=[((1, 2, 6, 3),)]),
    ]
    for i in range(6):
        k = (_RNG.randint(1, 3), _RNG.randint(1, 3))
        d = (_RNG.randint(1, 2), _RNG.randint(1, 2))
        p = (_RNG.randint(0, 2), _RNG.randint(0, 2))
        s = (_RNG.randint(1, 3), _RNG.randint(1, 3))
        hw = (_RNG.randint(4, 8), _RNG.randint(4, 8))
        c = _RNG.randint(1, 3)
        rows.append(OpCase(ops=("_im2col",), name=f"unfold_{i}",
                           fn=lambda m, x, k=k, d=d, p=p, s=s: m.nn.functional.unfold(x, k, dilation=d, padding=p,
                                                                                        stride=s),
                           shapes=[((2, c) + hw,), ((c,) + hw,)]))
        bh = (hw[0] + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
        bw = (hw[1] + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
        rows.append(OpCase(ops=("_col2im",), name=f"fold_{i}",
                           fn=lambda m, x, k=k, d=d, p=p, s=s, hw=hw: m.nn.functional.fold(x, hw, k, dilation=d,
                                                                                           padding=p, stride=s),
                           shapes=[((2, c * k[0] * k[1], bh * bw),), ((c * k[0] * k[1], bh * bw),)]))
    rows += [
        OpCase(ops=("_im2col",), name="unfold_int_args", fn=lambda m, x: m.nn.functional.unfold(x, 2, 1, 1, 2),
               shapes=[((1, 2, 5, 5),), ((0, 2, 4, 4),)]),
        OpCase(ops=("_col2im",), name="fold_int_args", fn=lambda m, x: m.nn.functional.fold(x, 4, 2, stride=2),
               shapes=[((1, 8, 4),)]),
        OpCase(ops=("_im2col", "_col2im"), name="fold_unfold_double_backward",
               fn=lambda m, x: _double_backward(m, x, lambda y: m.nn.functional.fold(
                   m.nn.functional.unfold(y, 2, padding=1) * 2, (3, 4), 2, padding=1)),
               shapes=[((1, 2, 3, 4),)], noncontiguous=False),
    ]
    for name, fn, shape in [
        ("unfold_5d", lambda m, x: m.nn.functional.unfold(x, 2), (1, 2, 3, 3, 3)),
        ("unfold_big_kernel", lambda m, x: m.nn.functional.unfold(x, (7, 3)), (1, 3, 5, 6)),
        ("unfold_kernel_zero", lambda m, x: m.nn.functional.unfold(x, 0), (1, 3, 5, 6)),
        ("unfold_stride_zero", lambda m, x: m.nn.functional.unfold(x, 2, stride=0), (1, 3, 5, 6)),
        ("unfold_negative_padding", lambda m, x: m.nn.functional.unfold(x, 2, padding=-1), (1, 3, 5, 6)),
        ("unfold_kernel_3", lambda m, x: m.nn.functional.unfold(x, (2, 2, 2)), (1, 3, 5, 6)),
        ("fold_channels", lambda m, x: m.nn.functional.fold(x, (4, 5), 2), (2, 13, 12)),
        ("fold_blocks", lambda m, x: m.nn.functional.fold(x, (4, 5), 2), (2, 12, 7)),
        ("fold_4d", lambda m, x: m.nn.functional.fold(x, (4, 5), 2), (1, 12, 12, 1)),
    ]:
        rows.append(OpCase(ops=("_im2col", "_col2im"), name=f"bad_{name}", fn=fn, shapes=[(shape,)], grad=False))
    return rows


def _grid_sample(mode, padding, align):
    # Grid values in [-1.2, 1.2]: some points fall outside the input.
    return lambda m, x, g: m.nn.functional.grid_sample(x, g * 0.6, mode=mode, padding_mode=padding,
                                                       align_corners=align)


def _grid_rows():
    rows = []
    for mode in ("bilinear", "nearest", "bicubic"):
        for padding in ("zeros", "border", "reflection"):
            for align in (False, True):
                n, c = _RNG.randint(1, 2), _RNG.randint(1, 3)
                shapes = [((n, c) + _random_spatial(2, 1, 5), (n,) + _random_spatial(2, 1, 4) + (2,))]
                if mode != "bicubic":
                    shapes.append(((n, c) + _random_spatial(3, 1, 4), (n,) + _random_spatial(3, 1, 3) + (3,)))
                rows.append(OpCase(ops=("grid_sampler",), name=f"grid_sample_{mode}_{padding}_ac{int(align)}",
                                   fn=_grid_sample(mode, padding, align), shapes=shapes))
    # Far outside the input (several reflections), and the default align_corners.
    rows.append(OpCase(ops=("grid_sampler",), name="grid_sample_far",
                       fn=lambda m, x, g: m.nn.functional.grid_sample(x, g * 3, padding_mode="reflection",
                                                                      align_corners=False),
                       shapes=[((1, 2, 3, 4), (1, 5, 2, 2))]))
    rows.append(OpCase(ops=("grid_sampler",), name="grid_sample_default",
                       fn=lambda m, x, g: m.nn.functional.grid_sample(x, g), shapes=[((2, 1, 3, 4), (2, 2, 3, 2))]))
    rows.append(OpCase(ops=("grid_sampler",), name="grid_sampler", fn=lambda m, x, g: m.grid_sampler(x, g, 0, 1, True),
                       shapes=[((2, 1, 3, 4), (2, 2, 3, 2))]))
    rows.append(OpCase(ops=("grid_sampler",), name="grid_sample_empty", fn=_grid_sample("bilinear", "zeros", False),
                       shapes=[((2, 3, 4, 5), (2, 0, 3, 2)), ((0, 3, 4, 5), (0, 3, 3, 2))]))
    for name, shapes in [("last_dim", ((2, 3, 4, 5), (2, 3, 3, 3))), ("batch", ((2, 3, 4, 5), (1, 3, 3, 2))),
                         ("rank", ((2, 3, 4, 5), (2, 3, 3, 3, 2))), ("3d", ((2, 3, 4), (2, 3, 2))),
                         ("empty_input", ((2, 3, 0, 5), (2, 3, 3, 2)))]:
        rows.append(OpCase(ops=("grid_sampler",), name=f"grid_sample_bad_{name}",
                           fn=_grid_sample("bilinear", "zeros", False), shapes=[shapes], grad=False))
    rows.append(OpCase(ops=("grid_sampler",), name="grid_sample_bad_bicubic_5d",
                       fn=_grid_sample("bicubic", "zeros", False), shapes=[((1, 1, 2, 2, 2), (1, 1, 1, 1, 3))],
                       grad=False))
    for name, mode, padding in [("mode", "area", "zeros"), ("padding", "bilinear", "wrap")]:
        rows.append(OpCase(ops=("grid_sampler",), name=f"grid_sample_bad_{name}",
                           fn=_grid_sample(mode, padding, False), shapes=[((1, 1, 2, 2), (1, 1, 1, 2))], grad=False))
    for align in (False, True):
        rows.append(OpCase(ops=("affine_grid_generator",), name=f"affine_grid_2d_ac{int(align)}",
                           fn=lambda m, t, a=align: m.nn.functional.affine_grid(t, (2, 3, 4, 5), align_corners=a),
                           shapes=[((2, 2, 3),)]))
        rows.append(OpCase(ops=("affine_grid_generator",), name=f"affine_grid_3d_ac{int(align)}",
                           fn=lambda m, t, a=align: m.nn.functional.affine_grid(t, (1, 2, 3, 1, 4), align_corners=a),
                           shapes=[((1, 3, 4),)]))
        rows.append(OpCase(ops=("affine_grid_generator", "grid_sampler"), name=f"affine_grid_sample_ac{int(align)}",
                           fn=lambda m, t, x, a=align: m.nn.functional.grid_sample(
                               x, m.nn.functional.affine_grid(t, (2, 3, 2, 5), align_corners=a), align_corners=a),
                           shapes=[((2, 2, 3), (2, 3, 4, 4))]))
    rows.append(OpCase(ops=("affine_grid_generator",), name="affine_grid_generator",
                       fn=lambda m, t: m.affine_grid_generator(t, (2, 1, 1, 3), False), shapes=[((2, 2, 3),)]))
    for name, size, shape in [("theta_shape", (2, 3, 4, 5), (2, 3, 4)), ("theta_3d", (2, 3, 4, 5, 6), (2, 2, 3)),
                              ("size_3", (2, 3, 4), (2, 2, 3)), ("size_zero", (2, 3, 0, 5), (2, 2, 3)),
                              ("batch", (3, 3, 4, 5), (2, 2, 3))]:
        rows.append(OpCase(ops=("affine_grid_generator",), name=f"affine_grid_bad_{name}",
                           fn=lambda m, t, s=size: m.nn.functional.affine_grid(t, s, align_corners=False),
                           shapes=[(shape,)], grad=False))
    return rows


CASES = _interp_rows() + _pad_rows() + _shape_rows() + _grid_rows()


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_parity(case):
    assert run_case(case) > 0


def _pair(shape, dtype="float32"):
    a = np.random.default_rng(0).uniform(-1, 1, size=shape)
    return flow.tensor(a).to(getattr(flow, dtype)), torch.tensor(a).to(getattr(torch, dtype))


# (name, fn(m, *inputs), input shapes, strings our message must contain: the op and the shapes)
_ERRORS = [
    ("scale_zero", lambda m, x: m.nn.functional.interpolate(x, scale_factor=0.0), [(1, 2, 4, 4)],
     ["upsample_nearest2d", "(H: 4, W: 4)", "(H: 0, W: 0)"]),
    ("scale_negative", lambda m, x: m.nn.functional.interpolate(x, scale_factor=-2.0, mode="linear"), [(1, 2, 4)],
     ["upsample_linear1d", "(W: 4)", "(W: -8)"]),
    ("size_and_scale", lambda m, x: m.nn.functional.interpolate(x, size=2, scale_factor=2.0), [(1, 2, 4, 4)],
     ["interpolate", "[1, 2, 4, 4]"]),
    ("align_nearest", lambda m, x: m.nn.functional.interpolate(x, size=2, align_corners=True), [(1, 2, 4, 4)],
     ["interpolate", "nearest"]),
    ("bilinear_rank", lambda m, x: m.nn.functional.interpolate(x, size=2, mode="bilinear"), [(1, 2, 4)],
     ["interpolate", "3D", "bilinear"]),
    ("bicubic_rank", lambda m, x: m.nn.functional.interpolate(x, size=2, mode="bicubic"), [(1, 2, 4, 4, 4)],
     ["interpolate", "5D", "bicubic"]),
    ("size_length", lambda m, x: m.nn.functional.interpolate(x, size=(2, 2, 2)), [(1, 2, 4, 4)],
     ["interpolate", "[4, 4]", "(2, 2, 2)"]),
    ("empty_channels", lambda m, x: m.nn.functional.interpolate(x, size=2, mode="bilinear"), [(1, 0, 4, 4)],
     ["upsample_bilinear2d", "[1, 0, 4, 4]"]),
    ("reflect_too_big", lambda m, x: m.nn.functional.pad(x, (4, 1), mode="reflect"), [(1, 2, 4)],
     ["reflection_pad1d", "(4, 1)", "[1, 2, 4]"]),
    ("reflect_too_big_2d", lambda m, x: m.nn.functional.pad(x, (1, 1, 1, 5), mode="reflect"), [(1, 3, 4)],
     ["reflection_pad2d", "(1, 5)", "[1, 3, 4]"]),
    ("replicate_rank", lambda m, x: m.nn.functional.pad(x, (1, 1), mode="replicate"), [(1, 2, 4, 4)],
     ["pad", "[1, 2, 4, 4]"]),
    ("circular_wrap", lambda m, x: m.nn.functional.pad(x, (5, 1), mode="circular"), [(1, 2, 4)],
     ["pad_circular", "(5, 1)", "[1, 2, 4]"]),
    ("pad_odd", lambda m, x: m.nn.functional.pad(x, (1, 1, 1)), [(2, 3)], ["pad", "[2, 3]"]),
    ("reflect_value", lambda m, x: m.nn.functional.pad(x, (1, 1), mode="reflect", value=2.0), [(1, 2, 4)],
     ["pad", "reflect"]),
    ("pixel_shuffle_channels", lambda m, x: m.nn.functional.pixel_shuffle(x, 2), [(1, 6, 2, 2)],
     ["pixel_shuffle", "[1, 6, 2, 2]", "input.size(-3)=6"]),
    ("pixel_unshuffle_height", lambda m, x: m.nn.functional.pixel_unshuffle(x, 2), [(1, 1, 3, 2)],
     ["pixel_unshuffle", "[1, 1, 3, 2]"]),
    ("grid_last_dim", lambda m, x, g: m.nn.functional.grid_sample(x, g, align_corners=False),
     [(2, 3, 4, 5), (2, 3, 3, 3)], ["grid_sampler", "[2, 3, 4, 5]", "[2, 3, 3, 3]"]),
    ("grid_batch", lambda m, x, g: m.nn.functional.grid_sample(x, g, align_corners=False),
     [(2, 3, 4, 5), (1, 3, 3, 2)], ["grid_sampler", "[2, 3, 4, 5]", "[1, 3, 3, 2]"]),
    ("grid_rank", lambda m, x, g: m.nn.functional.grid_sample(x, g, align_corners=False),
     [(2, 3, 4, 5), (2, 3, 3, 1, 3)], ["grid_sampler", "[2, 3, 4, 5]", "[2, 3, 3, 1, 3]"]),
    ("grid_mode", lambda m, x, g: m.nn.functional.grid_sample(x, g, mode="area", align_corners=False),
     [(1, 1, 2, 2), (1, 1, 1, 2)], ["grid_sample", "area"]),
    ("affine_theta", lambda m, t: m.nn.functional.affine_grid(t, (2, 3, 4, 5), align_corners=False), [(2, 3, 4)],
     ["affine_grid", "(2, 3, 4, 5)", "[2, 3, 4]"]),
    ("unfold_kernel", lambda m, x: m.nn.functional.unfold(x, (7, 3)), [(1, 3, 5, 6)],
     ["unfold", "(5, 6)", "(7, 3)"]),
    ("fold_blocks", lambda m, x: m.nn.functional.fold(x, (4, 5), 2), [(2, 12, 7)], ["fold", "(4, 5)", "=7"]),
]


@pytest.mark.parametrize("name,fn,shapes,needles", _ERRORS, ids=[e[0] for e in _ERRORS])
def test_errors(name, fn, shapes, needles):
    pairs = [_pair(s) for s in shapes]
    with pytest.raises(Exception) as theirs:
        fn(torch, *[t for _, t in pairs])
    with pytest.raises(Exception) as ours:
        fn(flow, *[o for o, _ in pairs])
    assert isinstance(ours.value, type(theirs.value)), (
        f"torch raised {type(theirs.value).__name__}, we raised {type(ours.value).__name__}: {ours.value}")
    for needle in needles:
        assert needle in str(ours.value), f"{needle!r} not in {str(ours.value)!r}"


def test_scale_factor_sampling():
    """With scale_factor (and no recompute) the kernels sample with 1 / scale_factor, not in / out."""
    x = np.arange(5.0).reshape(1, 1, 5)
    for mode, kw in [("linear", {"align_corners": False}), ("nearest", {})]:
        ours = flow.nn.functional.interpolate(flow.tensor(x), scale_factor=1.7, mode=mode, **kw)
        theirs = torch.nn.functional.interpolate(torch.tensor(x), scale_factor=1.7, mode=mode, **kw)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
        again = flow.nn.functional.interpolate(flow.tensor(x), scale_factor=1.7, mode=mode,
                                               recompute_scale_factor=True, **kw)
        assert tuple(again.shape) == (1, 1, 8)
