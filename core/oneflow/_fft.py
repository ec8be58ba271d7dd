"""The FFT family, composed from real tensor ops so autograd comes for free.

Each 1-D transform runs on separate real and imaginary tensors with the transformed dim
last. Power-of-two lengths use a radix-2 decimation in time whose recursion stacks the
even and odd halves into the batch, so a transform of length n costs log2(n) batched
steps; other lengths use Bluestein's chirp-z, a power-of-two convolution. Both are
O(n log n).
"""

from __future__ import annotations

import math

import numpy as np

import oneflow
from oneflow._complex import ComplexTensor, _complex_of, _pack

_NORMS = ("backward", "ortho", "forward")
_SMALL = 32  # at or below this length a dense DFT matmul beats the recursion (measured: 16, 32, 64)


def _check_norm(fn: str, norm):
    if norm is None:
        return "backward"
    if norm not in _NORMS:
        raise ValueError(f"{fn}: invalid normalization mode {norm!r}; expected one of {_NORMS}")
    return norm


def _scale(norm: str, n: int, inverse: bool) -> float:
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    if (norm == "forward") != inverse:
        return 1.0 / n
    return 1.0


def _const(values: np.ndarray, like):
    return oneflow.tensor(values, dtype=like.dtype, device=like.device)


def _dft_small(re, im, sign: int):
    n = re.shape[-1]
    k = np.arange(n)
    ang = sign * 2 * np.pi * ((np.outer(k, k) % n) / n)
    c, s = _const(np.cos(ang), re), _const(np.sin(ang), re)
    return re @ c - im @ s, re @ s + im @ c


def _radix2(re, im, sign: int):
    """Transforms the rows of 2-D ``re``/``im`` (length a power of two, or small)."""
    b, n = re.shape
    if n <= _SMALL:
        return _dft_small(re, im, sign)
    # Even and odd samples become consecutive rows of one batch, so each level is one call.
    re2 = re.reshape(b, n // 2, 2).transpose(1, 2).reshape(2 * b, n // 2)
    im2 = im.reshape(b, n // 2, 2).transpose(1, 2).reshape(2 * b, n // 2)
    er, ei = _radix2(re2, im2, sign)
    er, ei = er.reshape(b, 2, n // 2), ei.reshape(b, 2, n // 2)
    ang = sign * 2 * np.pi * np.arange(n // 2) / n
    c, s = _const(np.cos(ang), re), _const(np.sin(ang), re)
    ore, oim = er.select(1, 1), ei.select(1, 1)
    tr = ore * c - oim * s
    ti = ore * s + oim * c
    ere, eim = er.select(1, 0), ei.select(1, 0)
    return oneflow.cat([ere + tr, ere - tr], -1), oneflow.cat([eim + ti, eim - ti], -1)


def _bluestein(re, im, sign: int):
    n = re.shape[-1]
    m = 1 << (2 * n - 2).bit_length()
    k = np.arange(n, dtype=np.int64)
    ang = sign * np.pi * ((k * k) % (2 * n)) / n
    cr, ci = np.cos(ang), np.sin(ang)
    b = np.zeros(m, dtype=np.complex128)
    b[:n] = cr - 1j * ci
    b[m - n + 1 :] = b[1:n][::-1]
    br, bi = _radix2(_const(b.real, re).reshape(1, m), _const(b.imag, re).reshape(1, m), -1)
    c_re, c_im = _const(cr, re), _const(ci, re)
    ar = re * c_re - im * c_im
    ai = re * c_im + im * c_re
    pad = [0, m - n]
    ar, ai = oneflow.nn.functional.pad(ar, pad), oneflow.nn.functional.pad(ai, pad)
    fr, fi = _radix2(ar, ai, -1)
    pr, pi = fr * br - fi * bi, fr * bi + fi * br
    vr, vi = _radix2(pr, pi, 1)
    vr, vi = vr[..., :n] / m, vi[..., :n] / m
    return vr * c_re - vi * c_im, vr * c_im + vi * c_re


def _transform(re, im, sign: int):
    shape = tuple(re.shape)
    n = shape[-1]
    re, im = re.reshape(-1, n), im.reshape(-1, n)
    if n & (n - 1) == 0 or n <= _SMALL:
        out_re, out_im = _radix2(re, im, sign)
    else:
        out_re, out_im = _bluestein(re, im, sign)
    return out_re.reshape(shape), out_im.reshape(shape)


def _parts(fn: str, input):
    if isinstance(input, ComplexTensor):
        return input.real, input.imag
    if not isinstance(input, oneflow.Tensor):
        raise TypeError(f"{fn}: expected a tensor, got {type(input).__name__}")
    re = input if input.is_floating_point() else input.to(oneflow.get_default_dtype())
    if re.dtype not in (oneflow.float32, oneflow.float64):
        re = re.to(oneflow.float32)
    return re, oneflow.zeros_like(re)


def _resize(t, n: int):
    size = t.shape[-1]
    if n < size:
        return t[..., :n]
    if n > size:
        return oneflow.nn.functional.pad(t, [0, n - size])
    return t


def _check_n(fn: str, n, default: int) -> int:
    if n is None or n == -1:
        n = default
    if n < 1:
        raise RuntimeError(f"{fn}: invalid number of data points ({n}) specified")
    return n


def _c2c(fn: str, re, im, n, dim: int, norm, inverse: bool):
    nd = re.ndim
    if nd == 0:
        raise IndexError(f"{fn}: expected a tensor with at least 1 dimension, got a 0-d tensor")
    if not -nd <= dim < nd:
        raise IndexError(f"{fn}: dim {dim} out of range for a tensor with {nd} dimensions")
    re, im = re.movedim(dim, -1), im.movedim(dim, -1)
    n = _check_n(fn, n, re.shape[-1])
    re, im = _resize(re, n), _resize(im, n)
    out_re, out_im = _transform(re, im, 1 if inverse else -1)
    s = _scale(norm, n, inverse)
    if s != 1.0:
        out_re, out_im = out_re * s, out_im * s
    return out_re.movedim(-1, dim), out_im.movedim(-1, dim)


def fft(input, n=None, dim=-1, norm=None):
    """fft(input, n=None, dim=-1, norm=None) -> Tensor

    The one-dimensional discrete Fourier transform of ``input`` along ``dim``.

    Args:
        input (Tensor): real or complex input.
        n (int, optional): signal length; the input is zero-padded or trimmed to it.
        dim (int, optional): the dimension to transform.
        norm (str, optional): ``"backward"`` (no scaling), ``"ortho"`` (1/sqrt(n)) or
            ``"forward"`` (1/n).
    """
    norm = _check_norm("fft", norm)
    re, im = _parts("fft", input)
    return _pack(*_c2c("fft", re, im, n, dim, norm, False))


def ifft(input, n=None, dim=-1, norm=None):
    """ifft(input, n=None, dim=-1, norm=None) -> Tensor

    The one-dimensional inverse discrete Fourier transform (``"backward"`` scales by 1/n).
    """
    norm = _check_norm("ifft", norm)
    re, im = _parts("ifft", input)
    return _pack(*_c2c("ifft", re, im, n, dim, norm, True))


def _dims(fn: str, input, s, dim, default_all=True):
    nd = input.ndim
    if dim is None:
        if s is None:
            dims = list(range(nd)) if default_all else [nd - 2, nd - 1]
        else:
            dims = list(range(nd - len(s), nd))
    else:
        dims = [dim] if isinstance(dim, int) else list(dim)
        dims = [d + nd if d < 0 else d for d in dims]
    if any(not 0 <= d < nd for d in dims):
        raise IndexError(f"{fn}: dim {dim} out of range for a tensor with {nd} dimensions")
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"{fn}: dims must be unique, got {dim}")
    if s is not None and len(s) != len(dims):
        raise RuntimeError(f"{fn}: when given, dim and shape arguments must have the same length, got s={s} dim={dim}")
    sizes = list(s) if s is not None else [None] * len(dims)
    return dims, sizes


def _c2c_nd(fn, input, s, dim, norm, inverse, default_all=True):
    norm = _check_norm(fn, norm)
    re, im = _parts(fn, input)
    dims, sizes = _dims(fn, re, s, dim, default_all)
    for d, n in zip(dims, sizes):
        re, im = _c2c(fn, re, im, n, d, norm, inverse)
    return _pack(re, im)


def fftn(input, s=None, dim=None, norm=None):
    """fftn(input, s=None, dim=None, norm=None) -> Tensor

    The N-dimensional discrete Fourier transform over ``dim`` (all dims by default).
    """
    return _c2c_nd("fftn", input, s, dim, norm, False)


def ifftn(input, s=None, dim=None, norm=None):
    """ifftn(input, s=None, dim=None, norm=None) -> Tensor

    The N-dimensional inverse discrete Fourier transform.
    """
    return _c2c_nd("ifftn", input, s, dim, norm, True)


def fft2(input, s=None, dim=(-2, -1), norm=None):
    """fft2(input, s=None, dim=(-2, -1), norm=None) -> Tensor

    The two-dimensional discrete Fourier transform.
    """
    return _c2c_nd("fft2", input, s, dim, norm, False)


def ifft2(input, s=None, dim=(-2, -1), norm=None):
    """ifft2(input, s=None, dim=(-2, -1), norm=None) -> Tensor

    The two-dimensional inverse discrete Fourier transform.
    """
    return _c2c_nd("ifft2", input, s, dim, norm, True)


def _real_input(fn: str, input):
    if isinstance(input, ComplexTensor):
        raise RuntimeError(f"{fn}: expected a real input tensor, but got {input.dtype}")
    return _parts(fn, input)[0]


def rfft(input, n=None, dim=-1, norm=None):
    """rfft(input, n=None, dim=-1, norm=None) -> Tensor

    The Fourier transform of a real input; only the ``n // 2 + 1`` non-negative frequencies.
    """
    norm = _check_norm("rfft", norm)
    re = _real_input("rfft", input)
    out_re, out_im = _c2c("rfft", re, oneflow.zeros_like(re), n, dim, norm, False)
    half = out_re.movedim(dim, -1).shape[-1] // 2 + 1
    out_re = out_re.movedim(dim, -1)[..., :half].movedim(-1, dim)
    out_im = out_im.movedim(dim, -1)[..., :half].movedim(-1, dim)
    return _pack(out_re, out_im)


def _irfft_last(fn, re, im, n, norm):
    """irfft over the last dim of split parts."""
    m = re.shape[-1]
    n = _check_n(fn, n, 2 * (m - 1))
    half = n // 2 + 1
    re, im = _resize(re, half), _resize(im, half)
    tail = n - half  # entries k = half .. n-1 mirror k' = n-k = tail .. 1
    if tail > 0:
        mirror_re = re[..., 1 : tail + 1].flip(-1)
        mirror_im = -im[..., 1 : tail + 1].flip(-1)
        re, im = oneflow.cat([re, mirror_re], -1), oneflow.cat([im, mirror_im], -1)
    out_re, _ = _transform(re, im, 1)
    s = _scale(norm, n, True)
    return out_re * s if s != 1.0 else out_re


def irfft(input, n=None, dim=-1, norm=None):
    """irfft(input, n=None, dim=-1, norm=None) -> Tensor

    The inverse of :func:`rfft`: a real signal of length ``n`` (default ``2 * (m - 1)``) from
    its ``m`` non-negative frequencies. Imaginary parts of the zero (and Nyquist) frequency
    are ignored.
    """
    norm = _check_norm("irfft", norm)
    re, im = _parts("irfft", input)
    nd = re.ndim
    if not -nd <= dim < nd:
        raise IndexError(f"irfft: dim {dim} out of range for a tensor with {nd} dimensions")
    out = _irfft_last("irfft", re.movedim(dim, -1), im.movedim(dim, -1), n, norm)
    return out.movedim(-1, dim)


def hfft(input, n=None, dim=-1, norm=None):
    """hfft(input, n=None, dim=-1, norm=None) -> Tensor

    The Fourier transform of a Hermitian-symmetric signal given by its first half; real output.
    """
    norm = _check_norm("hfft", norm)
    swapped = {"backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]
    re, im = _parts("hfft", input)
    nd = re.ndim
    if not -nd <= dim < nd:
        raise IndexError(f"hfft: dim {dim} out of range for a tensor with {nd} dimensions")
    out = _irfft_last("hfft", re.movedim(dim, -1), -im.movedim(dim, -1), n, swapped)
    return out.movedim(-1, dim)


def ihfft(input, n=None, dim=-1, norm=None):
    """ihfft(input, n=None, dim=-1, norm=None) -> Tensor

    The inverse of :func:`hfft`: the first half of the inverse transform of a real signal.
    """
    norm = _check_norm("ihfft", norm)
    swapped = {"backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]
    return rfft(_real_input("ihfft", input), n, dim, swapped).conj()


def rfftn(input, s=None, dim=None, norm=None):
    """rfftn(input, s=None, dim=None, norm=None) -> Tensor

    The N-dimensional Fourier transform of a real input; the last transformed dim is halved.
    """
    norm = _check_norm("rfftn", norm)
    re = _real_input("rfftn", input)
    dims, sizes = _dims("rfftn", re, s, dim)
    out = rfft(re, sizes[-1], dims[-1], norm)
    re, im = out.real, out.imag
    for d, n in zip(dims[:-1], sizes[:-1]):
        re, im = _c2c("rfftn", re, im, n, d, norm, False)
    return _pack(re, im)


def rfft2(input, s=None, dim=(-2, -1), norm=None):
    """rfft2(input, s=None, dim=(-2, -1), norm=None) -> Tensor

    The two-dimensional Fourier transform of a real input.
    """
    return rfftn(input, s, dim, norm)


def irfftn(input, s=None, dim=None, norm=None):
    """irfftn(input, s=None, dim=None, norm=None) -> Tensor

    The inverse of :func:`rfftn`; the last dim's output length defaults to ``2 * (m - 1)``.
    """
    norm = _check_norm("irfftn", norm)
    re, im = _parts("irfftn", input)
    dims, sizes = _dims("irfftn", re, s, dim)
    for d, n in zip(dims[:-1], sizes[:-1]):
        re, im = _c2c("irfftn", re, im, n, d, norm, True)
    last = dims[-1]
    out = _irfft_last("irfftn", re.movedim(last, -1), im.movedim(last, -1), sizes[-1], norm)
    return out.movedim(-1, last)


def irfft2(input, s=None, dim=(-2, -1), norm=None):
    """irfft2(input, s=None, dim=(-2, -1), norm=None) -> Tensor

    The inverse of :func:`rfft2`.
    """
    return irfftn(input, s, dim, norm)


def fftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False, **kwargs):
    """fftfreq(n, d=1.0, *, dtype=None, device=None) -> Tensor

    The sample frequencies of an ``n``-point transform with sample spacing ``d``.
    """
    k = np.concatenate([np.arange((n - 1) // 2 + 1), np.arange(-(n // 2), 0)]) / (d * n)
    dtype = dtype or oneflow.get_default_dtype()
    return oneflow.tensor(k, dtype=dtype, device=device, requires_grad=requires_grad)


def rfftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False, **kwargs):
    """rfftfreq(n, d=1.0, *, dtype=None, device=None) -> Tensor

    The non-negative sample frequencies of an ``n``-point real transform.
    """
    k = np.arange(n // 2 + 1) / (d * n)
    dtype = dtype or oneflow.get_default_dtype()
    return oneflow.tensor(k, dtype=dtype, device=device, requires_grad=requires_grad)


def _shift(input, dim, sign):
    nd = input.ndim
    dims = list(range(nd)) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    shifts = [sign * (input.shape[d] // 2) for d in dims]
    return input.roll(tuple(shifts), tuple(dims))


def fftshift(input, dim=None):
    """fftshift(input, dim=None) -> Tensor

    Moves the zero frequency to the centre of ``dim`` (all dims by default).
    """
    return _shift(input, dim, 1)


def ifftshift(input, dim=None):
    """ifftshift(input, dim=None) -> Tensor

    The inverse of :func:`fftshift`.
    """
    return _shift(input, dim, -1)


_ = _complex_of
