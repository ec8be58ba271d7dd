"""The ``oneflow.nn`` layer classes against PyTorch's.

For every case the same layer is built with ``m = torch`` and ``m = oneflow``; torch's
``state_dict`` is loaded into ours (so parameter and buffer names and shapes must be
torch's), then both see the same inputs and must agree on ``repr``, the forward outputs,
the buffers after the forward, and the gradients of every input and parameter. Bad
constructor and forward arguments must raise torch's exception type. Default
initialisation is checked for shapes and plausible statistics only.

Sections: the harness; linear, convolution, normalization, activation, padding, resampling,
reshaping, folding, distance and attention cases; bad arguments; running statistics;
dropout; initialisation; reprs; recurrent layers; transformers. (One file, as each test file
is its own Bazel target and cannot import another.)
"""

from __future__ import annotations

import copy
import math
import warnings

import numpy as np
import pytest
import torch

import oneflow as flow

# ---- the harness --------------------------------------------------------------------------


class Case:
    """One layer configuration: ``make(m)`` builds it, ``inputs`` are shapes (random normal
    float32), NumPy arrays, or a function of a NumPy Generator giving a list of arrays;
    ``fwd(mod, *inputs)`` calls it (default ``mod(*inputs)``); ``grad`` lists the input
    positions that get gradients (default: every floating input)."""

    def __init__(self, id, make, inputs, fwd=None, grad=None, rtol=1e-5, atol=1e-5, train=True):
        self.id = id
        self.make = make
        self.inputs = inputs
        self.fwd = fwd if fwd is not None else (lambda mod, *xs: mod(*xs))
        self.grad = grad
        self.rtol = rtol
        self.atol = atol
        self.train = train

    def __repr__(self):
        return self.id


def materialize(inputs, rng):
    if callable(inputs):
        return list(inputs(rng))
    out = []
    for spec in inputs:
        if isinstance(spec, np.ndarray):
            out.append(spec)
        else:
            out.append(rng.standard_normal(spec).astype(np.float32))
    return out


def flatten(out):
    """Outputs as a flat list (tuples and lists opened, ``None`` kept)."""
    if isinstance(out, (tuple, list)):
        return [leaf for item in out for leaf in flatten(item)]
    return [out]


def np_of(t):
    return t.detach().numpy()


def load_from_torch(ours, theirs):
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})


def build_pair(make, seed=0):
    torch.manual_seed(seed)
    theirs = make(torch)
    ours = make(flow)
    load_from_torch(ours, theirs)
    return ours, theirs


def assert_close(a, b, rtol, atol, what):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, f"{what}: shape {a.shape} != torch's {b.shape}"
    assert a.dtype == b.dtype, f"{what}: dtype {a.dtype} != torch's {b.dtype}"
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=what)


def run_case(case: Case):
    """Builds both layers, compares repr, outputs, buffers and gradients; returns both layers."""
    rng = np.random.default_rng(0)
    arrays = materialize(case.inputs, rng)
    ours, theirs = build_pair(case.make)
    assert repr(ours) == repr(theirs)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    if not case.train:
        ours.eval()
        theirs.eval()
    grad_at = case.grad
    if grad_at is None:
        grad_at = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"]
    t_in = [torch.tensor(a, requires_grad=i in grad_at) for i, a in enumerate(arrays)]
    f_in = [flow.tensor(a, requires_grad=i in grad_at) for i, a in enumerate(arrays)]
    t_out = flatten(case.fwd(theirs, *t_in))
    f_out = flatten(case.fwd(ours, *f_in))
    assert len(f_out) == len(t_out)
    for k, (fo, to) in enumerate(zip(f_out, t_out)):
        if to is None:
            assert fo is None, f"output {k}: torch gives None"
            continue
        assert_close(np_of(fo), np_of(to), case.rtol, case.atol, f"output {k}")
    for (_, fb), (tn, tb) in zip(ours.named_buffers(), theirs.named_buffers()):
        assert_close(np_of(fb), np_of(tb), case.rtol, case.atol, f"buffer {tn}")
    # A random cotangent for every differentiable output, the same for both.
    t_loss, f_loss = 0, 0
    for fo, to in zip(f_out, t_out):
        if to is None or not to.requires_grad:
            continue
        w = rng.standard_normal(tuple(to.shape)).astype(np.float32)
        t_loss = t_loss + (to * torch.tensor(w)).sum()
        f_loss = f_loss + (fo * flow.tensor(w)).sum()
    if isinstance(t_loss, int):
        return ours, theirs
    t_loss.backward()
    f_loss.backward()
    grad_rtol, grad_atol = case.rtol * 10, case.atol * 10
    for i in grad_at:
        assert f_in[i].grad is not None, f"input {i} got no gradient"
        assert_close(np_of(f_in[i].grad), np_of(t_in[i].grad), grad_rtol, grad_atol, f"grad of input {i}")
    for (name, fp), (_, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        if tp.grad is None:
            assert fp.grad is None or not np.any(np_of(fp.grad)), f"{name}: torch has no gradient"
            continue
        assert fp.grad is not None, f"{name} got no gradient"
        assert_close(np_of(fp.grad), np_of(tp.grad), grad_rtol, grad_atol, f"grad of {name}")
    return ours, theirs


def assert_same_error(fn):
    """``fn(m)`` raises for torch; ours must raise the same exception type."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as theirs:
            fn(torch)
        with pytest.raises(Exception) as ours:
            fn(flow)
    assert type(ours.value) is type(theirs.value), (
        f"torch raises {type(theirs.value).__name__}: {theirs.value}; "
        f"ours raises {type(ours.value).__name__}: {ours.value}")


def fwd_nonleaf(mod, x):
    """For in-place layers: run on a non-leaf copy so autograd allows the write."""
    return mod(x * 1.0)


# ---- Linear, Bilinear, Identity ------------------------------------------------------------

LINEAR_CASES = [
    Case("linear", lambda m: m.nn.Linear(5, 3), [(2, 4, 5)]),
    Case("linear_nobias", lambda m: m.nn.Linear(5, 3, bias=False), [(4, 5)]),
    Case("linear_1d", lambda m: m.nn.Linear(5, 3), [(5,)]),
    Case("linear_zero_out", lambda m: m.nn.Linear(5, 0), [(2, 5)]),
    Case("bilinear", lambda m: m.nn.Bilinear(3, 4, 2), [(5, 3), (5, 4)]),
    Case("bilinear_nobias_3d", lambda m: m.nn.Bilinear(3, 4, 2, bias=False), [(2, 5, 3), (2, 5, 4)]),
    Case("identity", lambda m: m.nn.Identity(3, unused=True), [(2, 3)]),
]

# ---- convolutions --------------------------------------------------------------------------

CONV_CASES = [
    Case("conv1d", lambda m: m.nn.Conv1d(4, 6, 3), [(2, 4, 9)]),
    Case("conv1d_all", lambda m: m.nn.Conv1d(4, 6, 3, stride=2, padding=2, dilation=2, groups=2, bias=False),
         [(2, 4, 11)]),
    Case("conv1d_unbatched", lambda m: m.nn.Conv1d(4, 6, 2, padding=1), [(4, 7)]),
    Case("conv1d_same_even", lambda m: m.nn.Conv1d(2, 3, 4, padding="same", dilation=2), [(2, 2, 9)]),
    Case("conv1d_valid", lambda m: m.nn.Conv1d(2, 3, 4, padding="valid"), [(2, 2, 9)]),
    Case("conv1d_reflect", lambda m: m.nn.Conv1d(2, 3, 3, padding=2, padding_mode="reflect"), [(2, 2, 7)]),
    Case("conv1d_circular_same", lambda m: m.nn.Conv1d(2, 3, 4, padding="same", padding_mode="circular"),
         [(2, 2, 7)]),
    Case("conv2d", lambda m: m.nn.Conv2d(4, 6, (3, 2)), [(2, 4, 7, 6)]),
    Case("conv2d_all", lambda m: m.nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(1, 2),
                                             groups=2), [(2, 4, 8, 7)]),
    Case("conv2d_depthwise", lambda m: m.nn.Conv2d(3, 6, 3, groups=3, padding=1), [(2, 3, 5, 5)]),
    Case("conv2d_unbatched", lambda m: m.nn.Conv2d(2, 3, 3), [(2, 5, 6)]),
    Case("conv2d_same", lambda m: m.nn.Conv2d(2, 3, (4, 3), padding="same", dilation=(2, 1)), [(1, 2, 9, 8)]),
    Case("conv2d_circular", lambda m: m.nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode="circular"),
         [(2, 2, 6, 7)]),
    Case("conv2d_replicate", lambda m: m.nn.Conv2d(2, 3, 3, padding=1, stride=2, padding_mode="replicate"),
         [(2, 2, 6, 7)]),
    Case("conv2d_reflect", lambda m: m.nn.Conv2d(2, 3, 3, padding=(2, 1), padding_mode="reflect"),
         [(2, 2, 6, 7)]),
    Case("conv3d", lambda m: m.nn.Conv3d(2, 4, 3, stride=2, padding=1), [(2, 2, 5, 6, 7)]),
    Case("conv3d_groups", lambda m: m.nn.Conv3d(4, 4, (2, 3, 1), groups=4, dilation=(2, 1, 1), bias=False),
         [(1, 4, 5, 5, 3)]),
    Case("conv3d_same_replicate",
         lambda m: m.nn.Conv3d(2, 2, 3, padding="same", padding_mode="replicate"), [(1, 2, 4, 5, 3)]),
    Case("convt1d", lambda m: m.nn.ConvTranspose1d(4, 6, 3), [(2, 4, 5)]),
    Case("convt1d_all", lambda m: m.nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2,
                                                       bias=False, dilation=2), [(2, 4, 5)]),
    Case("convt1d_unbatched", lambda m: m.nn.ConvTranspose1d(3, 2, 2, stride=3), [(3, 4)]),
    Case("convt2d", lambda m: m.nn.ConvTranspose2d(4, 6, (3, 2), stride=(2, 3), padding=(1, 0),
                                                   output_padding=(1, 2)), [(2, 4, 4, 3)]),
    Case("convt2d_groups_dilation", lambda m: m.nn.ConvTranspose2d(4, 2, 3, groups=2, dilation=2, padding=1),
         [(2, 4, 4, 5)]),
    Case("convt2d_output_size", lambda m: m.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1), [(1, 2, 4, 4)],
         fwd=lambda mod, x: mod(x, output_size=[8, 7])),
    Case("convt2d_output_size_full", lambda m: m.nn.ConvTranspose2d(2, 3, 3, stride=2), [(1, 2, 4, 4)],
         fwd=lambda mod, x: mod(x, output_size=(1, 3, 10, 9))),
    Case("convt1d_output_size_unbatched", lambda m: m.nn.ConvTranspose1d(2, 3, 3, stride=3), [(2, 4)],
         fwd=lambda mod, x: mod(x, output_size=[14])),
    Case("convt3d", lambda m: m.nn.ConvTranspose3d(2, 4, (2, 3, 2), stride=2, padding=(0, 1, 0),
                                                   output_padding=(1, 0, 1)), [(1, 2, 3, 4, 2)]),
    Case("convt3d_groups", lambda m: m.nn.ConvTranspose3d(4, 4, 2, groups=2, bias=False), [(4, 2, 3, 2)]),
]

# ---- normalization -------------------------------------------------------------------------

NORM_CASES = [
    Case("bn1d_2d", lambda m: m.nn.BatchNorm1d(4), [(5, 4)]),
    Case("bn1d_3d", lambda m: m.nn.BatchNorm1d(4, eps=1e-3, momentum=0.3), [(5, 4, 3)]),
    Case("bn1d_eval", lambda m: m.nn.BatchNorm1d(4), [(5, 4, 3)], train=False),
    Case("bn2d", lambda m: m.nn.BatchNorm2d(3), [(2, 3, 4, 5)]),
    Case("bn2d_cumulative", lambda m: m.nn.BatchNorm2d(3, momentum=None), [(2, 3, 4, 5)]),
    Case("bn2d_no_affine", lambda m: m.nn.BatchNorm2d(3, affine=False), [(2, 3, 4, 5)]),
    Case("bn2d_no_stats", lambda m: m.nn.BatchNorm2d(3, track_running_stats=False), [(2, 3, 4, 5)]),
    Case("bn2d_no_stats_eval", lambda m: m.nn.BatchNorm2d(3, track_running_stats=False), [(2, 3, 4, 5)],
         train=False),
    Case("bn2d_eval", lambda m: m.nn.BatchNorm2d(3), [(2, 3, 4, 5)], train=False),
    Case("bn3d", lambda m: m.nn.BatchNorm3d(2, affine=False, momentum=0.5), [(2, 2, 3, 4, 3)]),
    Case("bn2d_nobias", lambda m: m.nn.BatchNorm2d(3, bias=False), [(2, 3, 4, 5)]),
    Case("layernorm", lambda m: m.nn.LayerNorm(5), [(2, 3, 5)]),
    Case("layernorm_2d_shape", lambda m: m.nn.LayerNorm([3, 5], eps=1e-3), [(2, 3, 5)]),
    Case("layernorm_no_affine", lambda m: m.nn.LayerNorm(5, elementwise_affine=False), [(4, 5)]),
    Case("layernorm_nobias", lambda m: m.nn.LayerNorm((5,), bias=False), [(4, 5)]),
    Case("groupnorm", lambda m: m.nn.GroupNorm(2, 4), [(3, 4, 5)]),
    Case("groupnorm_4d", lambda m: m.nn.GroupNorm(3, 6, eps=1e-3), [(2, 6, 3, 2)]),
    Case("groupnorm_no_affine", lambda m: m.nn.GroupNorm(4, 4, affine=False), [(2, 4, 3, 3)]),
    Case("groupnorm_2d_input", lambda m: m.nn.GroupNorm(2, 4), [(3, 4)]),
    Case("instnorm1d", lambda m: m.nn.InstanceNorm1d(4), [(2, 4, 6)]),
    Case("instnorm1d_unbatched", lambda m: m.nn.InstanceNorm1d(4, affine=True), [(4, 6)]),
    Case("instnorm1d_stats", lambda m: m.nn.InstanceNorm1d(4, track_running_stats=True, momentum=0.3),
         [(2, 4, 6)]),
    Case("instnorm1d_stats_eval", lambda m: m.nn.InstanceNorm1d(4, track_running_stats=True), [(2, 4, 6)],
         train=False),
    Case("instnorm2d", lambda m: m.nn.InstanceNorm2d(3, affine=True), [(2, 3, 4, 5)]),
    Case("instnorm2d_stats_cumulative",
         lambda m: m.nn.InstanceNorm2d(3, affine=True, track_running_stats=True, momentum=None),
         [(2, 3, 4, 5)]),
    Case("instnorm3d", lambda m: m.nn.InstanceNorm3d(2, affine=True, eps=1e-3), [(2, 2, 3, 4, 3)]),
    Case("instnorm3d_unbatched", lambda m: m.nn.InstanceNorm3d(2), [(2, 3, 4, 3)]),
    Case("rmsnorm", lambda m: m.nn.RMSNorm(5), [(2, 3, 5)]),
    Case("rmsnorm_shape_eps", lambda m: m.nn.RMSNorm([3, 5], eps=1e-3), [(2, 3, 5)]),
    Case("rmsnorm_no_affine", lambda m: m.nn.RMSNorm(5, elementwise_affine=False), [(4, 5)]),
    Case("lrn_3d", lambda m: m.nn.LocalResponseNorm(3), [(2, 5, 4)]),
    Case("lrn_4d", lambda m: m.nn.LocalResponseNorm(2, alpha=0.1, beta=0.5, k=2.0), [(2, 5, 3, 4)]),
    Case("lrn_5d", lambda m: m.nn.LocalResponseNorm(4, alpha=0.2), [(2, 6, 2, 3, 2)]),
]

# ---- activations ---------------------------------------------------------------------------

ACTIVATION_CASES = [
    Case("celu", lambda m: m.nn.CELU(0.5), [(3, 4)]),
    Case("celu_inplace", lambda m: m.nn.CELU(inplace=True), [(3, 4)], fwd=fwd_nonleaf),
    Case("elu", lambda m: m.nn.ELU(alpha=0.7), [(3, 4)]),
    Case("elu_inplace", lambda m: m.nn.ELU(inplace=True), [(3, 4)], fwd=fwd_nonleaf),
    Case("gelu", lambda m: m.nn.GELU(), [(3, 4)]),
    Case("gelu_tanh", lambda m: m.nn.GELU("tanh"), [(3, 4)]),
    Case("glu", lambda m: m.nn.GLU(), [(3, 4)]),
    Case("glu_dim0", lambda m: m.nn.GLU(dim=0), [(4, 3)]),
    Case("hardshrink", lambda m: m.nn.Hardshrink(0.3), [(3, 4)]),
    Case("hardsigmoid", lambda m: m.nn.Hardsigmoid(), [(3, 4)]),
    Case("hardsigmoid_inplace", lambda m: m.nn.Hardsigmoid(inplace=True), [(3, 4)], fwd=fwd_nonleaf),
    Case("hardswish", lambda m: m.nn.Hardswish(), [(3, 4)]),
    Case("hardtanh", lambda m: m.nn.Hardtanh(-0.5, 0.7), [(3, 4)]),
    Case("hardtanh_inplace", lambda m: m.nn.Hardtanh(inplace=True), [(3, 4)], fwd=fwd_nonleaf),
    Case("leaky_relu", lambda m: m.nn.LeakyReLU(0.2), [(3, 4)]),
    Case("leaky_relu_inplace", lambda m: m.nn.LeakyReLU(inplace=True), [(3, 4)], fwd=fwd_nonleaf),
    Case("logsigmoid", lambda m: m.nn.LogSigmoid(), [(3, 4)]),
    Case("logsoftmax", lambda m: m.nn.LogSoftmax(dim=1), [(3, 4, 2)]),
    Case("mish", lambda m: m.nn.Mish(), [(3, 4)]),
    Case("mish_inplace", lambda m: m.nn.Mish(inplace=True), [(3, 4)], fwd=fwd_nonleaf),
    Case("prelu", lambda m: m.nn.PReLU(), [(3, 4)]),
    Case("prelu_channels", lambda m: m.nn.PReLU(4, init=0.1), [(2, 4, 3)]),
    Case("prelu_1d", lambda m: m.nn.PReLU(), [(5,)]),
    Case("relu", lambda m: m.nn.ReLU(), [(3, 4)]),
    Case("relu_inplace", lambda m: m.nn.ReLU(inplace=True), [(3, 4)], fwd=fwd_nonleaf),
    Case("relu6", lambda m: m.nn.ReLU6(), [np.linspace(-8, 8, 12, dtype=np.float32).reshape(3, 4) + 0.1]),
    Case("relu6_inplace", lambda m: m.nn.ReLU6(inplace=True), [(3, 4)], fwd=fwd_nonleaf),
    Case("rrelu_eval", lambda m: m.nn.RReLU(0.1, 0.3), [(3, 4)], train=False),
    Case("selu", lambda m: m.nn.SELU(), [(3, 4)]),
    Case("selu_inplace", lambda m: m.nn.SELU(inplace=True), [(3, 4)], fwd=fwd_nonleaf),
    Case("silu", lambda m: m.nn.SiLU(), [(3, 4)]),
    Case("silu_inplace", lambda m: m.nn.SiLU(inplace=True), [(3, 4)], fwd=fwd_nonleaf),
    Case("sigmoid", lambda m: m.nn.Sigmoid(), [(3, 4)]),
    Case("softmax", lambda m: m.nn.Softmax(dim=-1), [(3, 4)]),
    Case("softmax_dim0", lambda m: m.nn.Softmax(0), [(3, 4, 2)]),
    Case("softmax2d", lambda m: m.nn.Softmax2d(), [(2, 3, 4, 2)]),
    Case("softmax2d_3d", lambda m: m.nn.Softmax2d(), [(3, 4, 2)]),
    Case("softmin", lambda m: m.nn.Softmin(dim=1), [(3, 4)]),
    Case("softplus", lambda m: m.nn.Softplus(beta=2.0, threshold=1.0), [(3, 4)]),
    Case("softshrink", lambda m: m.nn.Softshrink(0.2), [(3, 4)]),
    Case("softsign", lambda m: m.nn.Softsign(), [(3, 4)]),
    Case("tanh", lambda m: m.nn.Tanh(), [(3, 4)]),
    Case("tanhshrink", lambda m: m.nn.Tanhshrink(), [(3, 4)]),
    Case("threshold", lambda m: m.nn.Threshold(0.1, 20.0), [(3, 4)]),
    Case("threshold_inplace", lambda m: m.nn.Threshold(0.1, -2.0, inplace=True), [(3, 4)], fwd=fwd_nonleaf),
]

# ---- padding, resampling, reshaping, folding, distances ------------------------------------

PAD_CASES = [
    Case("constpad1d", lambda m: m.nn.ConstantPad1d(2, 3.5), [(2, 3, 4)]),
    Case("constpad1d_tuple_neg", lambda m: m.nn.ConstantPad1d((3, -1), -1.0), [(3, 4)]),
    Case("constpad2d", lambda m: m.nn.ConstantPad2d((1, 0, 2, 3), 1.5), [(2, 3, 4)]),
    Case("constpad3d", lambda m: m.nn.ConstantPad3d(1, 0.5), [(1, 2, 2, 3, 2)]),
    Case("zeropad1d", lambda m: m.nn.ZeroPad1d((1, 2)), [(2, 3, 4)]),
    Case("zeropad2d", lambda m: m.nn.ZeroPad2d(2), [(1, 2, 3, 4)]),
    Case("zeropad3d", lambda m: m.nn.ZeroPad3d((1, 0, 0, 1, 2, 0)), [(2, 2, 3, 2)]),
    Case("reflpad1d", lambda m: m.nn.ReflectionPad1d((3, 1)), [(2, 3, 4)]),
    Case("reflpad1d_unbatched", lambda m: m.nn.ReflectionPad1d(2), [(3, 4)]),
    Case("reflpad2d", lambda m: m.nn.ReflectionPad2d((1, 2, 2, 0)), [(2, 3, 4, 5)]),
    Case("reflpad3d", lambda m: m.nn.ReflectionPad3d(1), [(1, 2, 3, 3, 4)]),
    Case("reppad1d", lambda m: m.nn.ReplicationPad1d((0, 3)), [(2, 3, 4)]),
    Case("reppad2d", lambda m: m.nn.ReplicationPad2d(2), [(2, 3, 4)]),
    Case("reppad3d", lambda m: m.nn.ReplicationPad3d((1, 2, 0, 1, 2, 1)), [(1, 2, 3, 3, 4)]),
    Case("circpad1d", lambda m: m.nn.CircularPad1d((2, 1)), [(2, 3, 4)]),
    Case("circpad2d", lambda m: m.nn.CircularPad2d(1), [(2, 3, 4, 5)]),
    Case("circpad3d", lambda m: m.nn.CircularPad3d((1, 0, 2, 1, 0, 1)), [(1, 2, 3, 3, 4)]),
]

UPSAMPLE_CASES = [
    Case("upsample_nearest", lambda m: m.nn.Upsample(scale_factor=2), [(2, 3, 4)]),
    Case("upsample_nearest_size", lambda m: m.nn.Upsample(size=(5, 7)), [(1, 2, 3, 4)]),
    Case("upsample_nearest_tuple_scale", lambda m: m.nn.Upsample(scale_factor=(2, 1.5)), [(1, 2, 3, 4)]),
    Case("upsample_linear", lambda m: m.nn.Upsample(scale_factor=2.5, mode="linear"), [(2, 3, 4)]),
    Case("upsample_bilinear_ac", lambda m: m.nn.Upsample(size=(5, 7), mode="bilinear", align_corners=True),
         [(1, 2, 3, 4)]),
    Case("upsample_bilinear", lambda m: m.nn.Upsample(scale_factor=1.7, mode="bilinear"), [(1, 2, 3, 4)]),
    Case("upsample_bilinear_recompute",
         lambda m: m.nn.Upsample(scale_factor=1.7, mode="bilinear", recompute_scale_factor=True),
         [(1, 2, 3, 4)]),
    Case("upsample_bicubic", lambda m: m.nn.Upsample(scale_factor=2, mode="bicubic"), [(1, 2, 3, 4)],
         rtol=1e-4, atol=1e-5),
    Case("upsample_trilinear", lambda m: m.nn.Upsample(scale_factor=(1, 2, 1.5), mode="trilinear"),
         [(1, 2, 2, 3, 4)]),
    Case("upsample_nearest_exact", lambda m: m.nn.Upsample(size=7, mode="nearest-exact"), [(1, 2, 4)]),
    Case("upsample_area", lambda m: m.nn.Upsample(size=(2, 3), mode="area"), [(1, 2, 5, 7)]),
    Case("upsampling_nearest2d", lambda m: m.nn.UpsamplingNearest2d(scale_factor=2), [(1, 2, 3, 4)]),
    Case("upsampling_nearest2d_size", lambda m: m.nn.UpsamplingNearest2d(size=(4, 9)), [(1, 2, 3, 4)]),
    Case("upsampling_bilinear2d", lambda m: m.nn.UpsamplingBilinear2d(scale_factor=2), [(1, 2, 3, 4)]),
    Case("upsampling_bilinear2d_size", lambda m: m.nn.UpsamplingBilinear2d(size=(5, 6)), [(1, 2, 3, 4)]),
]

SHAPE_CASES = [
    Case("flatten", lambda m: m.nn.Flatten(), [(2, 3, 4, 5)]),
    Case("flatten_range", lambda m: m.nn.Flatten(0, 2), [(2, 3, 4, 5)]),
    Case("flatten_neg", lambda m: m.nn.Flatten(-3, -2), [(2, 3, 4, 5)]),
    Case("unflatten", lambda m: m.nn.Unflatten(1, (2, 3)), [(4, 6, 5)]),
    Case("unflatten_neg_infer", lambda m: m.nn.Unflatten(-1, [2, -1]), [(4, 6)]),
    Case("fold", lambda m: m.nn.Fold(output_size=(4, 5), kernel_size=(2, 3)), [(2, 3 * 6, 3 * 3)]),
    Case("fold_all", lambda m: m.nn.Fold((5, 4), 2, dilation=2, padding=1, stride=2), [(1, 2 * 4, 3 * 2)]),
    Case("fold_unbatched", lambda m: m.nn.Fold(3, 2), [(2 * 4, 4)]),
    Case("unfold", lambda m: m.nn.Unfold(kernel_size=(2, 3)), [(2, 3, 4, 5)]),
    Case("unfold_all", lambda m: m.nn.Unfold(2, dilation=2, padding=1, stride=(2, 1)), [(1, 2, 5, 4)]),
    Case("unfold_unbatched", lambda m: m.nn.Unfold(2), [(2, 3, 3)]),
    Case("pairwise", lambda m: m.nn.PairwiseDistance(), [(4, 5), (4, 5)]),
    Case("pairwise_p1_keepdim", lambda m: m.nn.PairwiseDistance(p=1.0, eps=1e-3, keepdim=True),
         [(4, 5), (1, 5)]),
    Case("pairwise_p3_1d", lambda m: m.nn.PairwiseDistance(p=3.0), [(5,), (5,)]),
    Case("pairwise_inf", lambda m: m.nn.PairwiseDistance(p=float("inf")), [(4, 5), (4, 5)]),
    Case("cosine", lambda m: m.nn.CosineSimilarity(), [(4, 5), (4, 5)]),
    Case("cosine_dim_broadcast", lambda m: m.nn.CosineSimilarity(dim=-1, eps=1e-4), [(3, 4, 5), (4, 5)]),
]

# ---- multi-head attention ------------------------------------------------------------------


def _mha_inputs(L, S, N, E, kdim=None, vdim=None, batch_first=False, unbatched=False):
    def shape(seq, dim):
        if unbatched:
            return (seq, dim)
        return (N, seq, dim) if batch_first else (seq, N, dim)

    return [shape(L, E), shape(S, kdim or E), shape(S, vdim or E)]


def _kpm(N, S):
    mask = np.zeros((N, S), dtype=bool)
    mask[:, -1] = True
    mask[0, 1] = True
    return mask


def _attn_bool(L, S):
    mask = np.triu(np.ones((L, S), dtype=bool), 1)
    return mask


def _mha_case(id, make, L=3, S=4, N=2, E=6, masks=None, call=None, grad=(0, 1, 2), **shape_kw):
    """``masks(rng)`` gives the extra (non-differentiable) mask arrays, ``call(mod, q, k, v, *masks)``."""
    base = _mha_inputs(L, S, N, E, **shape_kw)

    def inputs(rng):
        arrays = [rng.standard_normal(s).astype(np.float32) for s in base]
        return arrays + (list(masks(rng)) if masks else [])

    fwd = call if call is not None else (lambda mod, q, k, v: mod(q, k, v))
    return Case(id, make, inputs, fwd=fwd, grad=list(grad), rtol=1e-5, atol=1e-5)


MHA_CASES = [
    _mha_case("mha", lambda m: m.nn.MultiheadAttention(6, 2)),
    _mha_case("mha_self", lambda m: m.nn.MultiheadAttention(6, 3), S=3, grad=[0],
              call=lambda mod, q, k, v: mod(q, q, q)),
    _mha_case("mha_batch_first", lambda m: m.nn.MultiheadAttention(6, 2, batch_first=True), batch_first=True),
    _mha_case("mha_unbatched", lambda m: m.nn.MultiheadAttention(6, 2), unbatched=True),
    _mha_case("mha_nobias", lambda m: m.nn.MultiheadAttention(6, 2, bias=False)),
    _mha_case("mha_kdim_vdim", lambda m: m.nn.MultiheadAttention(6, 2, kdim=4, vdim=5), kdim=4, vdim=5),
    _mha_case("mha_kdim_vdim_bf", lambda m: m.nn.MultiheadAttention(6, 3, kdim=4, vdim=5, batch_first=True),
              kdim=4, vdim=5, batch_first=True),
    _mha_case("mha_bias_kv", lambda m: m.nn.MultiheadAttention(6, 2, add_bias_kv=True)),
    _mha_case("mha_zero_attn", lambda m: m.nn.MultiheadAttention(6, 2, add_zero_attn=True)),
    _mha_case("mha_bias_kv_zero_attn_masks",
              lambda m: m.nn.MultiheadAttention(6, 2, add_bias_kv=True, add_zero_attn=True),
              masks=lambda rng: [_kpm(2, 4), _attn_bool(3, 4)],
              call=lambda mod, q, k, v, kpm, am: mod(q, k, v, key_padding_mask=kpm, attn_mask=am)),
    _mha_case("mha_no_weights", lambda m: m.nn.MultiheadAttention(6, 2),
              call=lambda mod, q, k, v: mod(q, k, v, need_weights=False)),
    _mha_case("mha_per_head_weights", lambda m: m.nn.MultiheadAttention(6, 2),
              call=lambda mod, q, k, v: mod(q, k, v, average_attn_weights=False)),
    _mha_case("mha_per_head_weights_unbatched", lambda m: m.nn.MultiheadAttention(6, 2), unbatched=True,
              call=lambda mod, q, k, v: mod(q, k, v, average_attn_weights=False)),
    _mha_case("mha_kpm_bool", lambda m: m.nn.MultiheadAttention(6, 2), masks=lambda rng: [_kpm(2, 4)],
              call=lambda mod, q, k, v, kpm: mod(q, k, v, key_padding_mask=kpm)),
    _mha_case("mha_kpm_float", lambda m: m.nn.MultiheadAttention(6, 2),
              masks=lambda rng: [np.where(_kpm(2, 4), -1e4, 0.5).astype(np.float32)],
              call=lambda mod, q, k, v, kpm: mod(q, k, v, key_padding_mask=kpm)),
    _mha_case("mha_attn_mask_bool", lambda m: m.nn.MultiheadAttention(6, 2), masks=lambda rng: [_attn_bool(3, 4)],
              call=lambda mod, q, k, v, am: mod(q, k, v, attn_mask=am)),
    _mha_case("mha_attn_mask_float", lambda m: m.nn.MultiheadAttention(6, 2),
              masks=lambda rng: [rng.standard_normal((3, 4)).astype(np.float32)],
              call=lambda mod, q, k, v, am: mod(q, k, v, attn_mask=am)),
    _mha_case("mha_attn_mask_3d_and_kpm", lambda m: m.nn.MultiheadAttention(6, 2, batch_first=True),
              batch_first=True,
              masks=lambda rng: [rng.standard_normal((4, 3, 4)).astype(np.float32), _kpm(2, 4)],
              call=lambda mod, q, k, v, am, kpm: mod(q, k, v, attn_mask=am, key_padding_mask=kpm,
                                                     average_attn_weights=False)),
    _mha_case("mha_unbatched_masks", lambda m: m.nn.MultiheadAttention(6, 2), unbatched=True,
              masks=lambda rng: [_kpm(1, 4)[0], _attn_bool(3, 4)],
              call=lambda mod, q, k, v, kpm, am: mod(q, k, v, key_padding_mask=kpm, attn_mask=am)),
    # p = 1 makes dropout deterministic (all zeros), which pins down where it is applied.
    _mha_case("mha_dropout_one", lambda m: m.nn.MultiheadAttention(6, 2, dropout=1.0),
              call=lambda mod, q, k, v: mod(q, k, v, average_attn_weights=False)),
    _mha_case("mha_causal", lambda m: m.nn.MultiheadAttention(6, 2), S=3,
              masks=lambda rng: [_attn_bool(3, 3)],
              call=lambda mod, q, k, v, am: mod(q, k, v, attn_mask=am, is_causal=True, need_weights=False)),
]



def _f64(shapes):
    return lambda rng: [rng.standard_normal(s) for s in shapes]


FLOAT64_CASES = [
    Case("f64_linear", lambda m: m.nn.Linear(5, 3, dtype=m.float64), _f64([(2, 5)]), rtol=1e-10, atol=1e-12),
    Case("f64_conv2d", lambda m: m.nn.Conv2d(2, 3, 3, padding=1, dtype=m.float64), _f64([(1, 2, 4, 4)]),
         rtol=1e-10, atol=1e-12),
    Case("f64_convt1d", lambda m: m.nn.ConvTranspose1d(2, 3, 3, stride=2, dtype=m.float64), _f64([(1, 2, 4)]),
         rtol=1e-10, atol=1e-12),
    Case("f64_batchnorm", lambda m: m.nn.BatchNorm1d(3, dtype=m.float64), _f64([(4, 3)]), rtol=1e-10,
         atol=1e-12),
    Case("f64_layernorm", lambda m: m.nn.LayerNorm(4, dtype=m.float64), _f64([(3, 4)]), rtol=1e-10, atol=1e-12),
    Case("f64_groupnorm", lambda m: m.nn.GroupNorm(2, 4, dtype=m.float64), _f64([(2, 4, 3)]), rtol=1e-10,
         atol=1e-12),
    Case("f64_rmsnorm_eps_none", lambda m: m.nn.RMSNorm(4, dtype=m.float64), _f64([(3, 4)]), rtol=1e-10,
         atol=1e-12),
    Case("f64_prelu", lambda m: m.nn.PReLU(3, dtype=m.float64), _f64([(2, 3)]), rtol=1e-10, atol=1e-12),
    Case("f64_mha", lambda m: m.nn.MultiheadAttention(4, 2, dtype=m.float64), _f64([(3, 2, 4)] * 3),
         rtol=1e-10, atol=1e-12),
    Case("f64_gelu", lambda m: m.nn.GELU(), _f64([(3, 4)]), rtol=1e-10, atol=1e-12),
    Case("f64_softmax", lambda m: m.nn.LogSoftmax(-1), _f64([(3, 4)]), rtol=1e-10, atol=1e-12),
    Case("f64_lstm", lambda m: m.nn.LSTM(3, 4, dtype=m.float64), _f64([(5, 2, 3)]), rtol=1e-10, atol=1e-12),
    Case("f64_gru_cell", lambda m: m.nn.GRUCell(3, 4, dtype=m.float64), _f64([(2, 3)]), rtol=1e-10,
         atol=1e-12),
    Case("f64_encoder_layer", lambda m: m.nn.TransformerEncoderLayer(4, 2, 8, 0.0, dtype=m.float64),
         _f64([(3, 2, 4)]), rtol=1e-10, atol=1e-12),
]

ALL_CASES = (FLOAT64_CASES + LINEAR_CASES + CONV_CASES + NORM_CASES + ACTIVATION_CASES + PAD_CASES + UPSAMPLE_CASES
             + SHAPE_CASES + MHA_CASES)


@pytest.mark.parametrize("case", ALL_CASES, ids=lambda c: c.id)
def test_layer_matches_torch(case):
    run_case(case)


def _strided(x):
    """The same values in a non-contiguous layout (last two dims swapped in memory)."""
    return x if x.dim() < 2 else x.transpose(-1, -2).contiguous().transpose(-1, -2)


STRIDED_IDS = ["linear", "bilinear", "conv1d_all", "conv2d_all", "conv3d", "convt2d", "conv2d_circular", "bn2d",
               "bn1d_eval", "layernorm_2d_shape", "groupnorm_4d", "instnorm2d", "rmsnorm", "lrn_4d", "prelu_channels",
               "softmax_dim0", "glu_dim0", "reflpad2d", "circpad3d", "upsample_bilinear", "upsample_bicubic",
               "fold", "unfold_all", "cosine_dim_broadcast", "mha_kdim_vdim_bf", "mha_attn_mask_3d_and_kpm"]


@pytest.mark.parametrize("case_id", STRIDED_IDS)
def test_layer_matches_torch_on_strided_inputs(case_id):
    case = copy.copy(next(c for c in ALL_CASES if c.id == case_id))
    fwd = case.fwd
    case.fwd = lambda mod, *xs: fwd(mod, *[_strided(x) for x in xs])
    run_case(case)


def test_case_ids_are_unique():
    ids = [c.id for c in ALL_CASES]
    assert len(ids) == len(set(ids))


# ---- bad arguments -------------------------------------------------------------------------


def _call(make, shape, **kw):
    """``make(m)`` applied to a random input of ``shape`` (for forward-time errors)."""
    def fn(m):
        x = m.tensor(np.random.default_rng(0).standard_normal(shape).astype(np.float32))
        return make(m)(x, **kw)

    return fn


CTOR_ERRORS = {
    "linear_negative": lambda m: m.nn.Linear(-1, 3),
    "bilinear_negative": lambda m: m.nn.Bilinear(2, -2, 3),
    "conv_groups_in": lambda m: m.nn.Conv2d(3, 4, 3, groups=2),
    "conv_groups_out": lambda m: m.nn.Conv2d(4, 3, 3, groups=2),
    "conv_groups_zero": lambda m: m.nn.Conv1d(4, 4, 3, groups=0),
    "conv_bad_padding_string": lambda m: m.nn.Conv2d(2, 2, 3, padding="full"),
    "conv_same_strided": lambda m: m.nn.Conv2d(2, 2, 3, padding="same", stride=2),
    "conv_bad_padding_mode": lambda m: m.nn.Conv1d(2, 2, 3, padding_mode="mirror"),
    "convt_padding_mode": lambda m: m.nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect"),
    "convt_groups": lambda m: m.nn.ConvTranspose1d(3, 4, 3, groups=2),
    "groupnorm_divisible": lambda m: m.nn.GroupNorm(3, 4),
    "dropout_p_high": lambda m: m.nn.Dropout(1.5),
    "dropout_p_negative": lambda m: m.nn.Dropout2d(-0.1),
    "alpha_dropout_p": lambda m: m.nn.AlphaDropout(2.0),
    "hardtanh_order": lambda m: m.nn.Hardtanh(1.0, -1.0),
    "mha_divisible": lambda m: m.nn.MultiheadAttention(5, 2),
    "mha_zero_heads": lambda m: m.nn.MultiheadAttention(4, 0),
    "mha_zero_dim": lambda m: m.nn.MultiheadAttention(0, 2),
    "unflatten_int_size": lambda m: m.nn.Unflatten(1, 6),
    "unflatten_float_size": lambda m: m.nn.Unflatten(1, (2.0, 3)),
}

FORWARD_ERRORS = {
    "linear_features": _call(lambda m: m.nn.Linear(4, 3), (2, 5)),
    "bilinear_features": lambda m: m.nn.Bilinear(2, 3, 4)(m.zeros(2, 2), m.zeros(2, 2)),
    "conv_channels": _call(lambda m: m.nn.Conv2d(3, 4, 3), (1, 2, 5, 5)),
    "conv_rank": _call(lambda m: m.nn.Conv2d(3, 4, 3), (1, 1, 3, 5, 5)),
    "conv_too_small": _call(lambda m: m.nn.Conv2d(1, 1, 4), (1, 1, 3, 3)),
    "convt_output_size": _call(lambda m: m.nn.ConvTranspose2d(1, 1, 3, stride=2), (1, 1, 3, 3),
                               output_size=(20, 20)),
    "convt_output_size_len": _call(lambda m: m.nn.ConvTranspose2d(1, 1, 3, stride=2), (1, 1, 3, 3),
                                   output_size=(7,)),
    "bn_rank": _call(lambda m: m.nn.BatchNorm2d(3), (2, 3, 4)),
    "bn1d_rank": _call(lambda m: m.nn.BatchNorm1d(3), (2, 3, 4, 4)),
    "bn3d_rank": _call(lambda m: m.nn.BatchNorm3d(3), (2, 3, 4, 4)),
    "bn_channels": _call(lambda m: m.nn.BatchNorm1d(3), (2, 4)),
    "bn_single_value": _call(lambda m: m.nn.BatchNorm1d(3), (1, 3)),
    "instnorm_rank": _call(lambda m: m.nn.InstanceNorm2d(3), (2, 3)),
    "instnorm_channels_affine": _call(lambda m: m.nn.InstanceNorm1d(3, affine=True), (2, 4, 5)),
    "instnorm_single_value": _call(lambda m: m.nn.InstanceNorm1d(3), (2, 3, 1)),
    "layernorm_shape": _call(lambda m: m.nn.LayerNorm(4), (2, 5)),
    "groupnorm_channels": _call(lambda m: m.nn.GroupNorm(2, 4), (2, 6, 3)),
    "rmsnorm_shape": _call(lambda m: m.nn.RMSNorm([2, 3]), (4, 3)),
    "lrn_rank": _call(lambda m: m.nn.LocalResponseNorm(2), (3, 4)),
    "glu_odd": _call(lambda m: m.nn.GLU(), (3, 5)),
    "prelu_channels": _call(lambda m: m.nn.PReLU(3), (2, 4)),
    "softmax2d_rank": _call(lambda m: m.nn.Softmax2d(), (2, 3)),
    "softmax_dim": _call(lambda m: m.nn.Softmax(dim=3), (2, 3)),
    "dropout1d_rank": _call(lambda m: m.nn.Dropout1d(), (2, 3, 4, 5)),
    "reflection_too_wide": _call(lambda m: m.nn.ReflectionPad1d(4), (1, 2, 4)),
    "pad_rank": _call(lambda m: m.nn.ReflectionPad2d(1), (4,)),
    "circular_too_wide": _call(lambda m: m.nn.CircularPad1d(5), (1, 2, 4)),
    "circular1d_rank": _call(lambda m: m.nn.CircularPad1d(1), (1, 2, 3, 4)),
    "circular2d_rank": _call(lambda m: m.nn.CircularPad2d(1), (4, 5)),
    "circular3d_rank": _call(lambda m: m.nn.CircularPad3d(1), (1, 2, 3, 4, 5, 6)),
    "reflection_rank": _call(lambda m: m.nn.ReflectionPad1d(1), (1, 2, 3, 4)),
    "replication_rank": _call(lambda m: m.nn.ReplicationPad2d(1), (1, 2, 3, 4, 5)),
    "upsample_rank_mode": _call(lambda m: m.nn.Upsample(scale_factor=2, mode="bilinear"), (1, 2, 4)),
    "upsample_no_size": _call(lambda m: m.nn.Upsample(), (1, 2, 4)),
    "upsample_align_nearest": _call(lambda m: m.nn.Upsample(scale_factor=2, align_corners=True), (1, 2, 4)),
    "flatten_dims": _call(lambda m: m.nn.Flatten(2, 1), (2, 3, 4)),
    "unflatten_product": _call(lambda m: m.nn.Unflatten(1, (2, 4)), (2, 6)),
    "unflatten_dim": _call(lambda m: m.nn.Unflatten(3, (2, 3)), (2, 6)),
    "unflatten_dim_type": _call(lambda m: m.nn.Unflatten("x", (2, 3)), (2, 6)),
    "fold_blocks": _call(lambda m: m.nn.Fold((4, 4), 2), (1, 8, 5)),
    "fold_channels": _call(lambda m: m.nn.Fold((3, 3), 2), (1, 7, 4)),
    "unfold_rank": _call(lambda m: m.nn.Unfold(2), (2, 3, 4, 4, 4)),
    "unfold_rank_2d": _call(lambda m: m.nn.Unfold(2), (4, 4)),
    "unflatten_0d": _call(lambda m: m.nn.Unflatten(-1, (1, 1)), ()),
    "pairwise_shapes": lambda m: m.nn.PairwiseDistance()(m.zeros(3, 4), m.zeros(3, 5)),
    "cosine_shapes": lambda m: m.nn.CosineSimilarity()(m.zeros(3, 4), m.zeros(2, 4)),
    "mha_embed": lambda m: m.nn.MultiheadAttention(4, 2)(m.zeros(3, 2, 5), m.zeros(3, 2, 5), m.zeros(3, 2, 5)),
    "mha_rank": lambda m: m.nn.MultiheadAttention(4, 2)(m.zeros(3, 2, 4), m.zeros(3, 4), m.zeros(3, 4)),
    "mha_mask_shape": lambda m: m.nn.MultiheadAttention(4, 2)(
        m.zeros(3, 2, 4), m.zeros(5, 2, 4), m.zeros(5, 2, 4), attn_mask=m.zeros(3, 4)),
    "mha_kpm_shape": lambda m: m.nn.MultiheadAttention(4, 2)(
        m.zeros(3, 2, 4), m.zeros(5, 2, 4), m.zeros(5, 2, 4), key_padding_mask=m.zeros(2, 4, dtype=m.bool)),
    "mha_kv_mismatch": lambda m: m.nn.MultiheadAttention(4, 2)(m.zeros(3, 2, 4), m.zeros(5, 2, 4),
                                                               m.zeros(4, 2, 4)),
    "mha_causal_without_mask": lambda m: m.nn.MultiheadAttention(4, 2)(
        m.zeros(3, 2, 4), m.zeros(3, 2, 4), m.zeros(3, 2, 4), is_causal=True),
}


@pytest.mark.parametrize("name", sorted(CTOR_ERRORS))
def test_constructor_error_type_matches_torch(name):
    assert_same_error(CTOR_ERRORS[name])


@pytest.mark.parametrize("name", sorted(FORWARD_ERRORS))
def test_forward_error_type_matches_torch(name):
    assert_same_error(FORWARD_ERRORS[name])


# ---- running statistics --------------------------------------------------------------------

STATS_LAYERS = {
    "bn1d": (lambda m: m.nn.BatchNorm1d(3), (4, 3, 5)),
    "bn2d_momentum": (lambda m: m.nn.BatchNorm2d(3, momentum=0.4), (2, 3, 4, 2)),
    "bn2d_cumulative": (lambda m: m.nn.BatchNorm2d(3, momentum=None), (2, 3, 4, 2)),
    "bn3d_no_affine": (lambda m: m.nn.BatchNorm3d(2, affine=False), (2, 2, 2, 3, 2)),
    "bn_no_stats": (lambda m: m.nn.BatchNorm1d(3, track_running_stats=False), (4, 3)),
    "in1d_stats": (lambda m: m.nn.InstanceNorm1d(3, track_running_stats=True), (2, 3, 5)),
    "in2d_stats_cumulative": (lambda m: m.nn.InstanceNorm2d(3, track_running_stats=True, momentum=None,
                                                              affine=True), (2, 3, 4, 2)),
}


@pytest.mark.parametrize("name", sorted(STATS_LAYERS))
def test_running_statistics_follow_torch(name):
    """Several training steps update the buffers like torch's (momentum or cumulative average);
    eval mode then normalizes with them."""
    make, shape = STATS_LAYERS[name]
    ours, theirs = build_pair(make)
    rng = np.random.default_rng(1)
    for step in range(3):
        x = (rng.standard_normal(shape) * (step + 1) + step).astype(np.float32)
        assert_close(np_of(ours(flow.tensor(x))), np_of(theirs(torch.tensor(x))), 1e-5, 1e-5, f"step {step}")
        for (n, fb), (_, tb) in zip(ours.named_buffers(), theirs.named_buffers()):
            assert_close(np_of(fb), np_of(tb), 1e-5, 1e-6, f"{n} after step {step}")
    ours.eval()
    theirs.eval()
    x = rng.standard_normal(shape).astype(np.float32)
    assert_close(np_of(ours(flow.tensor(x))), np_of(theirs(torch.tensor(x))), 1e-5, 1e-5, "eval")
    before = {n: np_of(b).copy() for n, b in ours.named_buffers()}
    ours(flow.tensor(x))
    for n, b in ours.named_buffers():
        np.testing.assert_array_equal(np_of(b), before[n], err_msg=f"eval changed {n}")


def test_batchnorm_stats_and_reset():
    ours = flow.nn.BatchNorm1d(3)
    assert ours.num_batches_tracked.dtype == flow.int64
    assert tuple(ours.num_batches_tracked.shape) == ()
    ours(flow.randn(4, 3) * 3 + 1)
    assert int(ours.num_batches_tracked) == 1
    ours.reset_running_stats()
    np.testing.assert_array_equal(np_of(ours.running_mean), np.zeros(3, np.float32))
    np.testing.assert_array_equal(np_of(ours.running_var), np.ones(3, np.float32))
    assert int(ours.num_batches_tracked) == 0
    none = flow.nn.BatchNorm2d(3, track_running_stats=False)
    assert none.running_mean is None and none.running_var is None and none.num_batches_tracked is None
    assert list(none.state_dict()) == list(torch.nn.BatchNorm2d(3, track_running_stats=False).state_dict())


def test_batchnorm_loads_a_state_dict_without_num_batches_tracked():
    # Old checkpoints lack num_batches_tracked; torch fills it in rather than reporting it missing.
    theirs = torch.nn.BatchNorm1d(3)
    sd = {k: v.numpy() for k, v in theirs.state_dict().items() if k != "num_batches_tracked"}
    result = flow.nn.BatchNorm1d(3).load_state_dict(sd)
    assert list(result.missing_keys) == list(theirs.load_state_dict(
        {k: torch.tensor(v) for k, v in sd.items()}).missing_keys)


# ---- dropout -------------------------------------------------------------------------------

DROPOUT_LAYERS = {
    "dropout": (lambda m, **kw: m.nn.Dropout(**kw), (8, 50), None),
    "dropout1d": (lambda m, **kw: m.nn.Dropout1d(**kw), (8, 40, 6), 2),
    "dropout1d_unbatched": (lambda m, **kw: m.nn.Dropout1d(**kw), (40, 6), 1),
    "dropout2d": (lambda m, **kw: m.nn.Dropout2d(**kw), (8, 40, 3, 2), 2),
    "dropout3d": (lambda m, **kw: m.nn.Dropout3d(**kw), (4, 40, 2, 3, 2), 2),
    "dropout3d_unbatched": (lambda m, **kw: m.nn.Dropout3d(**kw), (40, 2, 3, 2), 1),
}


@pytest.mark.parametrize("name", sorted(DROPOUT_LAYERS))
def test_dropout_eval_and_p0_are_identity(name):
    make, shape, _ = DROPOUT_LAYERS[name]
    x = flow.randn(*shape)
    assert repr(make(flow, p=0.2, inplace=True)) == repr(make(torch, p=0.2, inplace=True))
    layer = make(flow, p=0.7)
    layer.eval()
    np.testing.assert_array_equal(np_of(layer(x)), np_of(x))
    np.testing.assert_array_equal(np_of(make(flow, p=0.0)(x)), np_of(x))
    np.testing.assert_array_equal(np_of(make(flow, p=1.0)(x)), np.zeros(shape, np.float32))


@pytest.mark.parametrize("name", sorted(DROPOUT_LAYERS))
def test_dropout_training_zeroes_and_scales(name):
    make, shape, spatial_from = DROPOUT_LAYERS[name]
    p = 0.3
    flow.manual_seed(0)
    x = flow.rand(*shape) + 1.0  # no zeros in the input
    x.requires_grad_(True)
    out = make(flow, p=p)(x)
    y, xs = np_of(out), np_of(x)
    kept = y != 0
    np.testing.assert_allclose(y[kept], xs[kept] / (1 - p), rtol=1e-6)
    assert 0.15 < 1 - kept.mean() < 0.45, f"drop fraction {1 - kept.mean()}"
    if spatial_from is not None:
        # Whole channels: every element of a channel is kept or dropped together.
        per_channel = kept.reshape(*shape[:spatial_from], -1)
        assert np.all(per_channel.all(-1) | ~per_channel.any(-1))
    out.backward(flow.ones_like(out))
    np.testing.assert_allclose(np_of(x.grad), kept / (1 - p), rtol=1e-6)


def test_dropout_inplace_writes_the_input():
    x = flow.rand(6, 20) + 1.0
    y = flow.nn.Dropout(0.5, inplace=True)(x)
    assert np.array_equal(np_of(x), np_of(y)) and (np_of(x) == 0).any()
    x = flow.rand(6, 20, 3) + 1.0
    flow.nn.Dropout2d(0.5, inplace=True)(x)
    assert (np_of(x) == 0).any()


@pytest.mark.parametrize("feature", [False, True])
def test_alpha_dropout(feature):
    cls_name = "FeatureAlphaDropout" if feature else "AlphaDropout"
    shape = (40, 50, 4) if feature else (200, 100)
    assert repr(getattr(flow.nn, cls_name)(0.2)) == repr(getattr(torch.nn, cls_name)(0.2))
    flow.manual_seed(0)
    x = flow.randn(*shape)
    layer = getattr(flow.nn, cls_name)(0.2)
    layer.eval()
    np.testing.assert_array_equal(np_of(layer(x)), np_of(x))
    layer.train()
    y = np_of(layer(x))
    # Self-normalizing: a standard normal input keeps mean 0 and variance 1.
    assert abs(y.mean()) < 0.1 and abs(y.std() - 1) < 0.1
    # Kept elements are a * x + b, dropped ones all a * alpha' + b, with b = -p * a * alpha'.
    p, alpha_p = 0.2, -1.7580993408473766
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -p * a * alpha_p
    dropped = np.isclose(y, a * alpha_p + b, atol=1e-6)
    assert 0.1 < dropped.mean() < 0.3
    np.testing.assert_allclose(y[~dropped], a * np_of(x)[~dropped] + b, rtol=1e-5, atol=1e-6)
    if feature:
        per_channel = dropped.reshape(shape[0], shape[1], -1)
        assert np.all(per_channel.all(-1) | ~per_channel.any(-1))


def test_rrelu_training_draws_slopes_in_range():
    flow.manual_seed(0)
    x = flow.randn(50, 40, requires_grad=True)
    layer = flow.nn.RReLU(0.1, 0.3)
    y = layer(x)
    xs, ys = np_of(x), np_of(y)
    pos = xs >= 0
    np.testing.assert_array_equal(ys[pos], xs[pos])
    slopes = ys[~pos] / xs[~pos]
    assert slopes.min() >= 0.1 - 1e-6 and slopes.max() <= 0.3 + 1e-6 and slopes.std() > 0.03
    y.backward(flow.ones_like(y))
    g = np_of(x.grad)
    np.testing.assert_array_equal(g[pos], 1.0)
    np.testing.assert_allclose(g[~pos], slopes, rtol=1e-5)
    assert repr(layer) == repr(torch.nn.RReLU(0.1, 0.3))


# ---- default initialisation ----------------------------------------------------------------


def _uniform(bound):
    return ("uniform", bound)


def _const(value):
    return ("const", value)


def _xavier(fan_in, fan_out):
    return ("uniform", math.sqrt(6.0 / (fan_in + fan_out)))


INIT_LAYERS = {
    "linear": (lambda m: m.nn.Linear(40, 30), {"weight": _uniform(40 ** -0.5), "bias": _uniform(40 ** -0.5)}),
    "bilinear": (lambda m: m.nn.Bilinear(6, 5, 40),
                 {"weight": _uniform(6 ** -0.5), "bias": _uniform(6 ** -0.5)}),
    "conv1d": (lambda m: m.nn.Conv1d(6, 40, 5), {"weight": _uniform(30 ** -0.5), "bias": _uniform(30 ** -0.5)}),
    "conv2d_groups": (lambda m: m.nn.Conv2d(4, 40, 3, groups=2),
                      {"weight": _uniform(18 ** -0.5), "bias": _uniform(18 ** -0.5)}),
    "conv3d": (lambda m: m.nn.Conv3d(2, 30, 2), {"weight": _uniform(16 ** -0.5), "bias": _uniform(16 ** -0.5)}),
    # The transposed weight is (in, out / groups, *k): its fan-in is read from dim 1.
    "convt2d_groups": (lambda m: m.nn.ConvTranspose2d(40, 8, 3, groups=2),
                       {"weight": _uniform(36 ** -0.5), "bias": _uniform(36 ** -0.5)}),
    "prelu": (lambda m: m.nn.PReLU(3, init=0.1), {"weight": _const(0.1)}),
    "bn": (lambda m: m.nn.BatchNorm2d(5), {"weight": _const(1.0), "bias": _const(0.0), "running_mean": _const(0.0),
                                           "running_var": _const(1.0), "num_batches_tracked": _const(0)}),
    "instnorm": (lambda m: m.nn.InstanceNorm1d(5, affine=True, track_running_stats=True),
                 {"weight": _const(1.0), "bias": _const(0.0), "running_mean": _const(0.0),
                  "running_var": _const(1.0), "num_batches_tracked": _const(0)}),
    "layernorm": (lambda m: m.nn.LayerNorm((3, 4)), {"weight": _const(1.0), "bias": _const(0.0)}),
    "groupnorm": (lambda m: m.nn.GroupNorm(2, 6), {"weight": _const(1.0), "bias": _const(0.0)}),
    "rmsnorm": (lambda m: m.nn.RMSNorm(6), {"weight": _const(1.0)}),
    "mha": (lambda m: m.nn.MultiheadAttention(16, 4, add_bias_kv=True),
            {"in_proj_weight": _xavier(16, 48), "in_proj_bias": _const(0.0), "out_proj.weight": _uniform(0.25),
             "out_proj.bias": _const(0.0), "bias_k": ("normal", math.sqrt(2 / 32)),
             "bias_v": ("normal", math.sqrt(2 / 32))}),
    "mha_kdim": (lambda m: m.nn.MultiheadAttention(16, 4, kdim=8, vdim=12, bias=False),
                 {"q_proj_weight": _xavier(16, 16), "k_proj_weight": _xavier(8, 16),
                  "v_proj_weight": _xavier(12, 16), "out_proj.weight": _uniform(0.25)}),
    "lstm": (lambda m: m.nn.LSTM(10, 16, num_layers=2, bidirectional=True, proj_size=4), "all", _uniform(0.25)),
    "gru": (lambda m: m.nn.GRU(10, 16, bias=False), "all", _uniform(0.25)),
    "rnn_cell": (lambda m: m.nn.RNNCell(10, 16), "all", _uniform(0.25)),
    "lstm_cell": (lambda m: m.nn.LSTMCell(10, 16), "all", _uniform(0.25)),
    "gru_cell": (lambda m: m.nn.GRUCell(10, 16), "all", _uniform(0.25)),
    "encoder_layer": (lambda m: m.nn.TransformerEncoderLayer(16, 4, dim_feedforward=32),
                      {"self_attn.in_proj_weight": _xavier(16, 48), "self_attn.in_proj_bias": _const(0.0),
                       "linear1.weight": _uniform(0.25), "linear1.bias": _uniform(0.25),
                       "linear2.weight": _uniform(32 ** -0.5), "norm1.weight": _const(1.0),
                       "norm2.bias": _const(0.0)}),
    "transformer": (lambda m: m.nn.Transformer(16, 4, 1, 1, dim_feedforward=32),
                    {"encoder.layers.0.linear1.weight": _xavier(16, 32),
                     "decoder.layers.0.multihead_attn.out_proj.weight": _xavier(16, 16),
                     "decoder.layers.0.linear1.bias": _uniform(0.25), "encoder.norm.weight": _const(1.0)}),
}


@pytest.mark.parametrize("name", sorted(INIT_LAYERS))
def test_default_init_shapes_and_statistics(name):
    make, spec, *default = INIT_LAYERS[name]
    flow.manual_seed(0)
    ours = make(flow)
    theirs = make(torch)
    ours_sd, theirs_sd = ours.state_dict(), theirs.state_dict()
    assert list(ours_sd) == list(theirs_sd)
    for key, t in theirs_sd.items():
        assert tuple(ours_sd[key].shape) == tuple(t.shape), key
        assert str(ours_sd[key].dtype).split(".")[-1] == str(t.dtype).split(".")[-1], key
    if spec == "all":
        spec = {key: default[0] for key in theirs_sd}
    for key, (kind, value) in spec.items():
        x = np_of(ours_sd[key]).astype(np.float64)
        if kind == "const":
            np.testing.assert_array_equal(x, np.full(x.shape, np.float32(value)), err_msg=key)
        elif kind == "uniform":
            assert np.abs(x).max() <= value * (1 + 1e-6), f"{key} exceeds {value}"
            assert np.abs(x).max() > 0.7 * value, f"{key} stays far inside {value}"
            if x.size >= 100:
                assert abs(x.std() / (value / math.sqrt(3)) - 1) < 0.25, f"{key}: std {x.std()} for bound {value}"
                assert abs(x.mean()) < 0.2 * value, key
        else:
            assert abs(x.std() / value - 1) < 0.6 and np.all(np.isfinite(x)), key


def test_rnn_reset_parameters_redraws():
    lstm = flow.nn.LSTM(4, 8)
    before = np_of(lstm.weight_ih_l0).copy()
    lstm.reset_parameters()
    assert not np.array_equal(before, np_of(lstm.weight_ih_l0))
    assert np.abs(np_of(lstm.weight_ih_l0)).max() <= 8 ** -0.5


# ---- smaller behaviours --------------------------------------------------------------------


def test_softmax_without_dim_warns_and_picks_torchs_dim():
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    for cls in ("Softmax", "LogSoftmax", "Softmin"):
        with pytest.warns(UserWarning):
            ours = getattr(flow.nn, cls)()(flow.tensor(x))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = getattr(torch.nn, cls)()(torch.tensor(x))
        assert_close(np_of(ours), np_of(theirs), 1e-6, 1e-6, cls)
        assert repr(getattr(flow.nn, cls)()) == repr(getattr(torch.nn, cls)())


def test_hardtanh_deprecated_keyword_names():
    with pytest.warns(FutureWarning):
        ours = flow.nn.Hardtanh(min_value=-0.5, max_value=2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.nn.Hardtanh(min_value=-0.5, max_value=2.0)
    assert repr(ours) == repr(theirs)


REPR_ONLY = {
    "dropout_default": lambda m: m.nn.Dropout(),
    "dropout_inplace": lambda m: m.nn.Dropout3d(0.25, inplace=True),
    "feature_alpha_dropout": lambda m: m.nn.FeatureAlphaDropout(0.1),
    "upsample_scale_tuple": lambda m: m.nn.Upsample(scale_factor=(2, 3), mode="bilinear", align_corners=False),
    "upsample_size_int": lambda m: m.nn.Upsample(7, mode="linear"),
    "upsample_int_scale": lambda m: m.nn.Upsample(scale_factor=3),
    "upsampling_bilinear": lambda m: m.nn.UpsamplingBilinear2d(scale_factor=2),
    "pad_int": lambda m: m.nn.ReflectionPad3d(2),
    "constpad_int_value": lambda m: m.nn.ConstantPad2d(2, 1),
    "zeropad_list": lambda m: m.nn.ZeroPad2d([1, 2, 3, 4]),
    "fold_tuple": lambda m: m.nn.Fold(output_size=(3, 4), kernel_size=[2, 2], stride=(1, 2)),
    "unfold": lambda m: m.nn.Unfold(3, padding=1),
    "unflatten_list": lambda m: m.nn.Unflatten(1, [2, 3]),
    "pairwise": lambda m: m.nn.PairwiseDistance(p=1.0),
    "cosine": lambda m: m.nn.CosineSimilarity(dim=0),
    "conv_padding_mode": lambda m: m.nn.Conv2d(2, 4, 3, padding=(1, 2), padding_mode="circular", bias=False),
    "conv_string_padding": lambda m: m.nn.Conv1d(2, 4, 3, padding="same"),
    "conv_dilation_groups": lambda m: m.nn.Conv3d(4, 4, (1, 2, 3), dilation=2, groups=4),
    "convt_output_padding": lambda m: m.nn.ConvTranspose2d(2, 4, 3, stride=2, output_padding=1, dilation=2),
    "batchnorm_none_momentum": lambda m: m.nn.BatchNorm1d(3, momentum=None, eps=1e-3),
    "instnorm_default": lambda m: m.nn.InstanceNorm2d(3),
    "layernorm_no_affine": lambda m: m.nn.LayerNorm([2, 3], elementwise_affine=False),
    "rmsnorm_default": lambda m: m.nn.RMSNorm(4),
    "lrn": lambda m: m.nn.LocalResponseNorm(5),
    "glu_default": lambda m: m.nn.GLU(),
    "softshrink": lambda m: m.nn.Softshrink(),
    "hardshrink": lambda m: m.nn.Hardshrink(),
    "softplus": lambda m: m.nn.Softplus(),
    "threshold": lambda m: m.nn.Threshold(0.5, 1),
    "relu6_inplace": lambda m: m.nn.ReLU6(True),
    "hardsigmoid_inplace": lambda m: m.nn.Hardsigmoid(True),
    "hardswish_inplace": lambda m: m.nn.Hardswish(True),
    "elu_inplace": lambda m: m.nn.ELU(inplace=True),
    "celu_default": lambda m: m.nn.CELU(),
    "leaky_default": lambda m: m.nn.LeakyReLU(),
    "rrelu_default": lambda m: m.nn.RReLU(),
    "prelu_default": lambda m: m.nn.PReLU(),
    "gelu_tanh": lambda m: m.nn.GELU(approximate="tanh"),
    "mha_kdim": lambda m: m.nn.MultiheadAttention(4, 2, kdim=3, vdim=5),
    "identity": lambda m: m.nn.Identity(),
    "linear_nobias": lambda m: m.nn.Linear(2, 3, bias=False),
    "bilinear": lambda m: m.nn.Bilinear(2, 3, 4),
}


@pytest.mark.parametrize("name", sorted(REPR_ONLY))
def test_repr_matches_torch(name):
    assert repr(REPR_ONLY[name](flow)) == repr(REPR_ONLY[name](torch))


# ---- recurrent layers ----------------------------------------------------------------------


def _with_states(mod, x, *states):
    """LSTM takes (h0, c0) as one tuple; the others take h0."""
    if len(states) == 2:
        return mod(x, tuple(states))
    return mod(x, *states)


RNN_CASES = [
    Case("rnn_tanh", lambda m: m.nn.RNN(4, 5), [(6, 3, 4)]),
    Case("rnn_relu_2layer_bidir_h0", lambda m: m.nn.RNN(4, 5, 2, nonlinearity="relu", bidirectional=True),
         [(6, 3, 4), (4, 3, 5)]),
    Case("rnn_batch_first_nobias", lambda m: m.nn.RNN(4, 5, batch_first=True, bias=False), [(3, 6, 4)]),
    Case("rnn_unbatched_h0", lambda m: m.nn.RNN(4, 5, num_layers=2), [(6, 4), (2, 5)]),
    Case("rnn_dropout_zero", lambda m: m.nn.RNN(4, 5, num_layers=2, dropout=0.0), [(3, 2, 4)]),
    Case("rnn_dropout_eval", lambda m: m.nn.RNN(4, 5, num_layers=2, dropout=0.5), [(3, 2, 4)], train=False),
    Case("rnn_dropout_one", lambda m: m.nn.RNN(4, 5, num_layers=2, dropout=1.0), [(3, 2, 4)]),
    Case("lstm", lambda m: m.nn.LSTM(4, 5), [(6, 3, 4)]),
    Case("lstm_2layer_states", lambda m: m.nn.LSTM(4, 5, num_layers=2), [(6, 3, 4), (2, 3, 5), (2, 3, 5)],
         fwd=_with_states),
    Case("lstm_bidir_batch_first", lambda m: m.nn.LSTM(4, 5, bidirectional=True, batch_first=True),
         [(3, 6, 4)]),
    Case("lstm_proj", lambda m: m.nn.LSTM(4, 6, num_layers=2, bidirectional=True, batch_first=True, proj_size=3),
         [(3, 5, 4), (4, 3, 3), (4, 3, 6)], fwd=_with_states),
    Case("lstm_proj_unbatched", lambda m: m.nn.LSTM(4, 6, proj_size=2), [(5, 4), (1, 2), (1, 6)],
         fwd=_with_states),
    Case("lstm_nobias_eval", lambda m: m.nn.LSTM(4, 5, bias=False, num_layers=2, dropout=0.3), [(5, 2, 4)],
         train=False),
    Case("gru", lambda m: m.nn.GRU(4, 5), [(6, 3, 4)]),
    Case("gru_3layer_bidir_h0", lambda m: m.nn.GRU(4, 5, 3, bidirectional=True), [(4, 2, 4), (6, 2, 5)]),
    Case("gru_batch_first_unbatched", lambda m: m.nn.GRU(4, 5, batch_first=True, bias=False), [(6, 4)]),
    Case("rnn_cell", lambda m: m.nn.RNNCell(4, 5), [(3, 4)]),
    Case("rnn_cell_relu_hx", lambda m: m.nn.RNNCell(4, 5, nonlinearity="relu"), [(3, 4), (3, 5)]),
    Case("rnn_cell_nobias_unbatched", lambda m: m.nn.RNNCell(4, 5, bias=False), [(4,), (5,)]),
    Case("lstm_cell", lambda m: m.nn.LSTMCell(4, 5), [(3, 4)]),
    Case("lstm_cell_states", lambda m: m.nn.LSTMCell(4, 5, bias=False), [(3, 4), (3, 5), (3, 5)],
         fwd=_with_states),
    Case("lstm_cell_unbatched", lambda m: m.nn.LSTMCell(4, 5), [(4,), (5,), (5,)], fwd=_with_states),
    Case("gru_cell", lambda m: m.nn.GRUCell(4, 5), [(3, 4), (3, 5)]),
    Case("gru_cell_unbatched_nobias", lambda m: m.nn.GRUCell(4, 5, bias=False), [(4,)]),
]


@pytest.mark.parametrize("case", [*RNN_CASES, *(
    Case(c.id + "_strided", c.make, c.inputs, lambda mod, *xs, f=c.fwd: f(mod, *[_strided(x) for x in xs]))
    for c in RNN_CASES if c.id in ("lstm_proj", "gru_3layer_bidir_h0", "rnn_batch_first_nobias", "lstm_cell_states"))],
    ids=lambda c: c.id)
def test_recurrent_layer_matches_torch(case):
    case = copy.copy(case)
    case.atol = 2e-5  # recurrences accumulate rounding over the time steps
    ours, theirs = run_case(case)
    if isinstance(ours, flow.nn.RNNBase):
        assert ours._flat_weights_names == theirs._flat_weights_names
        assert [[tuple(p.shape) for p in ws] for ws in ours.all_weights] == [
            [tuple(p.shape) for p in ws] for ws in theirs.all_weights]
        ours.flatten_parameters()


def test_rnn_dropout_between_layers_in_training():
    flow.manual_seed(0)
    rnn = flow.nn.LSTM(4, 32, num_layers=2, dropout=0.5)
    x = flow.randn(3, 2, 4)
    a, b = rnn(x)[0], rnn(x)[0]
    assert not np.allclose(np_of(a), np_of(b))  # fresh masks each call
    rnn.eval()
    np.testing.assert_array_equal(np_of(rnn(x)[0]), np_of(rnn(x)[0]))


def test_rnn_dropout_with_one_layer_warns():
    with pytest.warns(UserWarning):
        flow.nn.GRU(3, 4, dropout=0.2)


RNN_CTOR_ERRORS = {
    "nonlinearity": lambda m: m.nn.RNN(3, 4, nonlinearity="sigmoid"),
    "dropout_range": lambda m: m.nn.LSTM(3, 4, dropout=1.5),
    "dropout_bool": lambda m: m.nn.GRU(3, 4, dropout=True),
    "hidden_zero": lambda m: m.nn.RNN(3, 0),
    "hidden_float": lambda m: m.nn.LSTM(3, 4.5),
    "layers_zero": lambda m: m.nn.GRU(3, 4, num_layers=0),
    "proj_too_big": lambda m: m.nn.LSTM(3, 4, proj_size=4),
    "proj_negative": lambda m: m.nn.LSTM(3, 4, proj_size=-1),
    "proj_on_gru": lambda m: m.nn.GRU(3, 4, proj_size=2),
    "proj_on_rnn": lambda m: m.nn.RNN(3, 4, proj_size=2),
    "unknown_kwarg": lambda m: m.nn.RNN(3, 4, foo=1),
    "input_size_zero": lambda m: m.nn.LSTM(0, 4),
    "input_size_float": lambda m: m.nn.GRU(3.0, 4),
    "bias_not_bool": lambda m: m.nn.RNN(3, 4, bias=1),
    "batch_first_not_bool": lambda m: m.nn.LSTM(3, 4, batch_first=None),
}

RNN_FORWARD_ERRORS = {
    "input_features": _call(lambda m: m.nn.RNN(3, 4), (5, 2, 2)),
    "input_rank": _call(lambda m: m.nn.LSTM(3, 4), (5, 2, 2, 3)),
    "input_dtype": lambda m: m.nn.GRU(3, 4)(m.zeros(5, 2, 3, dtype=m.float64)),
    "h0_shape": lambda m: m.nn.RNN(3, 4)(m.zeros(5, 2, 3), m.zeros(1, 3, 4)),
    "h0_rank": lambda m: m.nn.GRU(3, 4)(m.zeros(5, 2, 3), m.zeros(2, 4)),
    "h0_rank_unbatched": lambda m: m.nn.GRU(3, 4)(m.zeros(5, 3), m.zeros(1, 1, 4)),
    "lstm_c0_shape": lambda m: m.nn.LSTM(3, 4, proj_size=2)(m.zeros(5, 2, 3), (m.zeros(1, 2, 2), m.zeros(1, 2, 2))),
    "lstm_h0_shape": lambda m: m.nn.LSTM(3, 4, proj_size=2)(m.zeros(5, 2, 3), (m.zeros(1, 2, 4), m.zeros(1, 2, 4))),
    "empty_sequence": _call(lambda m: m.nn.RNN(3, 4), (0, 2, 3)),
    "empty_sequence_batch_first": _call(lambda m: m.nn.LSTM(3, 4, batch_first=True), (2, 0, 3)),
    "lstm_hx_not_a_pair": lambda m: m.nn.LSTM(3, 2)(m.ones(4, 1, 3), m.zeros(1, 1, 2)),
    "cell_rank": _call(lambda m: m.nn.RNNCell(3, 4), (2, 2, 3)),
    "cell_input_size": _call(lambda m: m.nn.GRUCell(3, 4), (2, 5)),
    "cell_batch": lambda m: m.nn.LSTMCell(3, 4)(m.zeros(2, 3), (m.zeros(3, 4), m.zeros(3, 4))),
    "cell_hidden_size": lambda m: m.nn.RNNCell(3, 4)(m.zeros(2, 3), m.zeros(2, 5)),
    "cell_nonlinearity": lambda m: m.nn.RNNCell(3, 4, nonlinearity="gelu")(m.zeros(2, 3)),
}


@pytest.mark.parametrize("name", sorted(RNN_CTOR_ERRORS))
def test_recurrent_constructor_error_type_matches_torch(name):
    assert_same_error(RNN_CTOR_ERRORS[name])


@pytest.mark.parametrize("name", sorted(RNN_FORWARD_ERRORS))
def test_recurrent_forward_error_type_matches_torch(name):
    assert_same_error(RNN_FORWARD_ERRORS[name])


# ---- transformer ---------------------------------------------------------------------------

E, NHEAD, FF = 8, 2, 16


def _causal(n):
    return np.triu(np.full((n, n), -np.inf, dtype=np.float32), 1)


def _padding(n, s):
    mask = np.zeros((n, s), dtype=bool)
    mask[0, -2:] = True
    mask[-1, -1] = True
    return mask


def _enc_layer(m, **kw):
    kw.setdefault("dropout", 0.0)
    return m.nn.TransformerEncoderLayer(E, NHEAD, dim_feedforward=FF, **kw)


def _dec_layer(m, **kw):
    kw.setdefault("dropout", 0.0)
    return m.nn.TransformerDecoderLayer(E, NHEAD, dim_feedforward=FF, **kw)


def _seq(s, n, batch_first=False):
    return (n, s, E) if batch_first else (s, n, E)


def _tf_case(id, make, shapes, masks=(), fwd=None, **kw):
    """Floating inputs of ``shapes`` (differentiable) followed by the fixed ``masks``."""
    def inputs(rng):
        return [rng.standard_normal(s).astype(np.float32) for s in shapes] + [m for m in masks]

    return Case(id, make, inputs, fwd=fwd, grad=list(range(len(shapes))), rtol=1e-5, atol=2e-5, **kw)


TRANSFORMER_CASES = [
    _tf_case("enc_layer", lambda m: _enc_layer(m), [_seq(5, 3)]),
    _tf_case("enc_layer_norm_first_gelu_bf",
             lambda m: _enc_layer(m, norm_first=True, activation="gelu", batch_first=True), [_seq(5, 3, True)]),
    _tf_case("enc_layer_masks", lambda m: _enc_layer(m), [_seq(5, 3)], masks=[_causal(5), _padding(3, 5)],
             fwd=lambda mod, x, am, kpm: mod(x, src_mask=am, src_key_padding_mask=kpm)),
    _tf_case("enc_layer_bool_mask_is_causal", lambda m: _enc_layer(m, batch_first=True), [_seq(4, 2, True)],
             masks=[np.triu(np.ones((4, 4), dtype=bool), 1)],
             fwd=lambda mod, x, am: mod(x, src_mask=am, is_causal=True)),
    _tf_case("enc_layer_unbatched", lambda m: _enc_layer(m, norm_first=True), [(5, E)], masks=[_causal(5)],
             fwd=lambda mod, x, am: mod(x, am)),
    _tf_case("enc_layer_module_activation_nobias",
             lambda m: _enc_layer(m, activation=m.nn.GELU(approximate="tanh"), bias=False, layer_norm_eps=1e-3),
             [_seq(4, 2)]),
    _tf_case("enc_layer_eval_dropout", lambda m: _enc_layer(m, dropout=0.3), [_seq(4, 2)], train=False),
    _tf_case("enc_layer_dropout_one", lambda m: _enc_layer(m, dropout=1.0), [_seq(4, 2)]),
    _tf_case("enc_layer_dropout_one_norm_first", lambda m: _enc_layer(m, dropout=1.0, norm_first=True),
             [_seq(4, 2)]),
    _tf_case("dec_layer_dropout_one", lambda m: _dec_layer(m, dropout=1.0), [_seq(4, 2), _seq(3, 2)]),
    _tf_case("dec_layer", lambda m: _dec_layer(m), [_seq(4, 3), _seq(5, 3)]),
    _tf_case("dec_layer_masks", lambda m: _dec_layer(m), [_seq(4, 3), _seq(5, 3)],
             masks=[_causal(4), np.zeros((4, 5), np.float32) - 0.5, _padding(3, 4), _padding(3, 5)],
             fwd=lambda mod, t, mem, tm, mm, tkpm, mkpm: mod(t, mem, tgt_mask=tm, memory_mask=mm,
                                                             tgt_key_padding_mask=tkpm,
                                                             memory_key_padding_mask=mkpm)),
    _tf_case("dec_layer_norm_first_gelu_bf",
             lambda m: _dec_layer(m, norm_first=True, activation="gelu", batch_first=True),
             [_seq(4, 3, True), _seq(5, 3, True)], masks=[_causal(4)],
             fwd=lambda mod, t, mem, tm: mod(t, mem, tgt_mask=tm, tgt_is_causal=True)),
    _tf_case("dec_layer_unbatched_nobias", lambda m: _dec_layer(m, bias=False), [(4, E), (5, E)]),
    _tf_case("encoder", lambda m: m.nn.TransformerEncoder(_enc_layer(m), 2, norm=m.nn.LayerNorm(E),
                                                          enable_nested_tensor=False),
             [_seq(5, 3)], masks=[_causal(5), _padding(3, 5)],
             fwd=lambda mod, x, am, kpm: mod(x, mask=am, src_key_padding_mask=kpm)),
    _tf_case("encoder_bf_norm_first", lambda m: m.nn.TransformerEncoder(
        _enc_layer(m, batch_first=True, norm_first=True), 3, enable_nested_tensor=False), [_seq(4, 2, True)],
        masks=[_causal(4)], fwd=lambda mod, x, am: mod(x, am, is_causal=True)),
    _tf_case("decoder", lambda m: m.nn.TransformerDecoder(_dec_layer(m), 2, norm=m.nn.LayerNorm(E)),
             [_seq(4, 3), _seq(5, 3)], masks=[_causal(4), _padding(3, 5)],
             fwd=lambda mod, t, mem, tm, mkpm: mod(t, mem, tgt_mask=tm, memory_key_padding_mask=mkpm)),
    _tf_case("decoder_bf", lambda m: m.nn.TransformerDecoder(_dec_layer(m, batch_first=True, activation="gelu"), 2),
             [_seq(4, 3, True), _seq(5, 3, True)]),
    _tf_case("transformer", lambda m: m.nn.Transformer(E, NHEAD, 2, 1, FF, dropout=0.0),
             [_seq(5, 3), _seq(4, 3)], masks=[_causal(4), _padding(3, 5), _padding(3, 5)],
             fwd=lambda mod, s, t, tm, skpm, mkpm: mod(s, t, tgt_mask=tm, src_key_padding_mask=skpm,
                                                       memory_key_padding_mask=mkpm)),
    _tf_case("transformer_bf_norm_first_gelu",
             lambda m: m.nn.Transformer(E, NHEAD, 1, 2, FF, dropout=0.0, batch_first=True, norm_first=True,
                                        activation="gelu"),
             [_seq(5, 2, True), _seq(4, 2, True)], masks=[_causal(4), _causal(5)],
             fwd=lambda mod, s, t, tm, sm: mod(s, t, src_mask=sm, tgt_mask=tm)),
    _tf_case("transformer_unbatched", lambda m: m.nn.Transformer(E, NHEAD, 1, 1, FF, dropout=0.0, bias=False),
             [(5, E), (4, E)]),
    _tf_case("transformer_custom", lambda m: m.nn.Transformer(
        E, NHEAD, custom_encoder=m.nn.TransformerEncoder(_enc_layer(m), 1, enable_nested_tensor=False),
        custom_decoder=m.nn.TransformerDecoder(_dec_layer(m), 1)), [_seq(5, 2), _seq(3, 2)]),
]


@pytest.mark.parametrize("case", TRANSFORMER_CASES, ids=lambda c: c.id)
def test_transformer_layer_matches_torch(case):
    run_case(case)


def test_generate_square_subsequent_mask():
    ours = flow.nn.Transformer.generate_square_subsequent_mask(4)
    theirs = torch.nn.Transformer.generate_square_subsequent_mask(4)
    np.testing.assert_array_equal(np_of(ours), np_of(theirs))
    assert ours.dtype == flow.float32


def test_encoder_layers_are_independent_copies():
    layer = _enc_layer(flow)
    enc = flow.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    assert enc.layers[0].linear1.weight is not enc.layers[1].linear1.weight
    assert enc.layers[0].linear1.weight is not layer.linear1.weight
    assert len(enc.state_dict()) == len(torch.nn.TransformerEncoder(_enc_layer(torch), 2,
                                                                    enable_nested_tensor=False).state_dict())


TRANSFORMER_ERRORS = {
    "heads_divide": lambda m: m.nn.TransformerEncoderLayer(6, 4),
    "activation": lambda m: m.nn.TransformerEncoderLayer(4, 2, activation="tanh"),
    "batch_mismatch": lambda m: m.nn.Transformer(E, NHEAD, 1, 1, FF)(m.zeros(5, 2, E), m.zeros(4, 3, E)),
    "feature_mismatch": lambda m: m.nn.Transformer(E, NHEAD, 1, 1, FF)(m.zeros(5, 2, E), m.zeros(4, 2, E + 1)),
    "layer_width": lambda m: _enc_layer(m)(m.zeros(5, 2, E + 2)),
}


@pytest.mark.parametrize("name", sorted(TRANSFORMER_ERRORS))
def test_transformer_error_type_matches_torch(name):
    assert_same_error(TRANSFORMER_ERRORS[name])


def _warning_texts(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


NESTED_CONFIGS = {
    "batch_first": dict(batch_first=True),
    "seq_first": dict(),
    "norm_first": dict(batch_first=True, norm_first=True),
    "no_bias": dict(batch_first=True, bias=False),
    "tanh_activation": dict(batch_first=True, activation=lambda x: x.tanh()),
    "gelu_module": dict(batch_first=True, activation="gelu"),
}


@pytest.mark.parametrize("name", sorted(NESTED_CONFIGS))
def test_encoder_nested_tensor_flags_match_torch(name):
    kw = NESTED_CONFIGS[name]

    def build(m):
        return m.nn.TransformerEncoder(_enc_layer(m, **kw), 2)

    ours_warned = bool(_warning_texts(lambda: build(flow)))
    theirs_warned = bool(_warning_texts(lambda: build(torch)))
    assert ours_warned == theirs_warned
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = build(flow), build(torch)
    assert ours.use_nested_tensor == theirs.use_nested_tensor
    assert ours.layers[0].activation_relu_or_gelu == theirs.layers[0].activation_relu_or_gelu


@pytest.mark.parametrize("grad", [False, True])
@pytest.mark.parametrize("left_aligned", [True, False])
def test_encoder_inference_zeroes_padded_positions_like_torch(grad, left_aligned):
    """In eval mode without gradients PyTorch runs batch-first encoders on nested tensors: padded
    positions come back as zeros (then through the final norm)."""
    def build(m):
        return m.nn.TransformerEncoder(_enc_layer(m, batch_first=True), 2, norm=m.nn.LayerNorm(E))

    ours, theirs = build_pair(build)
    ours.eval()
    theirs.eval()
    x = np.random.default_rng(0).standard_normal((3, 5, E)).astype(np.float32)
    kpm = np.zeros((3, 5), dtype=bool)
    kpm[0, -2:] = True
    kpm[2, -1] = True
    if not left_aligned:
        kpm[1, 0] = True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.set_grad_enabled(grad):
            t = theirs(torch.tensor(x), src_key_padding_mask=torch.tensor(kpm))
        with flow.set_grad_enabled(grad):
            f = ours(flow.tensor(x), src_key_padding_mask=flow.tensor(kpm))
    assert_close(np_of(f), np_of(t), 1e-5, 2e-5, "output")


def test_mismatched_mask_types_warn_like_torch():
    am = np.triu(np.ones((4, 4), dtype=bool), 1)
    kpm = np.zeros((2, 4), dtype=np.float32)
    x = np.random.default_rng(0).standard_normal((4, 2, E)).astype(np.float32)

    def calls(m):
        mha = m.nn.MultiheadAttention(E, NHEAD)
        layer = _enc_layer(m)
        enc = m.nn.TransformerEncoder(_enc_layer(m), 1, enable_nested_tensor=False)
        t, a, k = m.tensor(x), m.tensor(am), m.tensor(kpm)
        return [lambda: mha(t, t, t, attn_mask=a, key_padding_mask=k), lambda: layer(t, a, k),
                lambda: enc(t, a, k)]

    for ours, theirs in zip(calls(flow), calls(torch)):
        assert len(_warning_texts(ours)) == len(_warning_texts(theirs)) == 1


# ---- functional forms of the layers above --------------------------------------------------

FUNCTIONAL_CASES = {
    "softmin": lambda F, x: F.softmin(x, 1),
    "softmin_dtype": lambda F, x: F.softmin(x, dim=-1, dtype=x.dtype),
    "local_response_norm_3d": lambda F, x: F.local_response_norm(x, 3),
    "local_response_norm_4d": lambda F, x: F.local_response_norm(x.reshape(2, 3, 2, 2), 2, alpha=0.3, beta=0.6,
                                                                 k=2.0),
    "rrelu_eval": lambda F, x: F.rrelu(x, 0.2, 0.4),
    "rrelu_inplace_eval": lambda F, x: F.rrelu_(x * 1.0, 0.2, 0.4),
    "alpha_dropout_eval": lambda F, x: F.alpha_dropout(x, 0.4),
    "alpha_dropout_p0": lambda F, x: F.alpha_dropout(x, 0.0, training=True),
    "alpha_dropout_p1": lambda F, x: F.alpha_dropout(x, 1.0, training=True),
    "feature_alpha_dropout_p1": lambda F, x: F.feature_alpha_dropout(x, 1.0, True),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONAL_CASES))
def test_functional_form_matches_torch(name):
    fn = FUNCTIONAL_CASES[name]
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    tx, fx = torch.tensor(x, requires_grad=True), flow.tensor(x, requires_grad=True)
    t, f = fn(torch.nn.functional, tx), fn(flow.nn.functional, fx)
    assert_close(np_of(f), np_of(t), 1e-6, 1e-6, "output")
    w = np.random.default_rng(1).standard_normal(tuple(t.shape)).astype(np.float32)
    (t * torch.tensor(w)).sum().backward()
    (f * flow.tensor(w)).sum().backward()
    assert_close(np_of(fx.grad), np_of(tx.grad), 1e-5, 1e-6, "grad")


@pytest.mark.parametrize("name", ["softmin", "local_response_norm", "rrelu", "alpha_dropout",
                                  "feature_alpha_dropout"])
def test_functional_signature_matches_torch(name):
    import inspect

    def params(fn):
        return [(p.name, p.default) for p in inspect.signature(fn).parameters.values()]

    assert params(getattr(flow.nn.functional, name)) == params(getattr(torch.nn.functional, name))


@pytest.mark.parametrize("cls", ["RReLU", "AlphaDropout", "FeatureAlphaDropout"])
def test_inplace_random_layers_stay_differentiable(cls):
    flow.manual_seed(0)
    x0 = flow.randn(20, 10, 3, requires_grad=True)
    layer = flow.nn.RReLU(0.1, 0.3, inplace=True) if cls == "RReLU" else getattr(flow.nn, cls)(0.2, inplace=True)
    x = x0 * 1.0
    y = layer(x)
    assert y is x
    y.backward(flow.ones_like(y))
    g = np_of(x0.grad)
    # The gradient is the per-element factor: 1 or the slope (RReLU), a or 0 (alpha dropout).
    assert len(np.unique(g.round(5))) > 1 and not np.allclose(g, 1.0)
    with pytest.raises(RuntimeError):
        layer(x0)  # a leaf that requires grad cannot be written in place


@pytest.mark.parametrize("skip", [False, True])
def test_fused_mlp_matches_torch_layers(skip):
    """nn.FusedMLP (OneFlow's) against torch Linear/ReLU layers with the same parameters."""
    mlp = flow.nn.FusedMLP(12, (32, 24), 8, skip_final_activation=skip)
    assert [k for k, _ in mlp.named_parameters()] == ["weight_0", "bias_0", "weight_1", "bias_1", "weight_2",
                                                      "bias_2"]
    layers = []
    for i, (fin, fout) in enumerate([(12, 32), (32, 24), (24, 8)]):
        lin = torch.nn.Linear(fin, fout)
        assert tuple(mlp.weight(i).shape) == (fout, fin)
        bound = 1 / math.sqrt(fin)  # Linear's initial distribution
        assert float(mlp.weight(i).abs().max()) <= bound and float(mlp.bias(i).abs().max()) <= bound
        with torch.no_grad():
            lin.weight.copy_(torch.from_numpy(mlp.weight(i).detach().numpy()))
            lin.bias.copy_(torch.from_numpy(mlp.bias(i).detach().numpy()))
        layers += [lin, torch.nn.ReLU()]
    theirs = torch.nn.Sequential(*(layers[:-1] if skip else layers))
    x = np.random.default_rng(0).standard_normal((5, 3, 12)).astype(np.float32)
    fx, tx = flow.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ours, ref = mlp(fx), theirs(tx)
    np.testing.assert_allclose(ours.detach().numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-5)
    (ours * ours).sum().backward()
    (ref * ref).sum().backward()
    np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    for i in range(3):
        np.testing.assert_allclose(mlp.weight(i).grad.numpy(), theirs[2 * i].weight.grad.numpy(), rtol=1e-4,
                                   atol=1e-5)
        np.testing.assert_allclose(mlp.bias(i).grad.numpy(), theirs[2 * i].bias.grad.numpy(), rtol=1e-4, atol=1e-5)
    with flow.no_grad():
        np.testing.assert_allclose(mlp(fx).numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-5)


def test_fused_mlp_dropout_in_training_only():
    mlp = flow.nn.FusedMLP(16, (64,), 32, hidden_dropout_rate=0.5, out_dropout_rate=0.5)
    x = flow.randn(8, 16)
    mlp.eval()
    with flow.no_grad():
        plain = mlp(x)
    np.testing.assert_array_equal(plain.numpy(), flow._C.fused_mlp(x, [mlp.weight_0, mlp.weight_1],
                                                                   [mlp.bias_0, mlp.bias_1], False).detach().numpy())
    mlp.train()
    dropped = mlp(x).detach().numpy()
    kept = dropped != 0
    assert 0.2 < 1 - kept.mean() < 0.9  # output dropout (and zeros from ReLU and hidden dropout)
    assert np.all(dropped[kept] >= 0)
