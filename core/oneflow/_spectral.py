"""The short-time Fourier transform and its inverse (the windows live in _windows_and_transforms)."""

from __future__ import annotations

import oneflow
from oneflow import _fft
from oneflow._complex import ComplexTensor, _pack


def _padded_window(fn, window, win_length, n_fft, like):
    if window is None:
        window = oneflow.ones(win_length, dtype=like.dtype, device=like.device)
    if window.ndim != 1 or window.shape[0] != win_length:
        raise RuntimeError(f"{fn}: expected a 1-D window of size {win_length}, got shape {tuple(window.shape)}")
    left = (n_fft - win_length) // 2
    if left or n_fft - win_length - left:
        window = oneflow.nn.functional.pad(window, [left, n_fft - win_length - left])
    return window


def stft(
    input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
    normalized=False, onesided=None, return_complex=None,
):  # fmt: skip
    """stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode='reflect',
    normalized=False, onesided=None, return_complex=None) -> Tensor

    The short-time Fourier transform of a 1-D or batched 2-D real signal: frames of ``n_fft``
    samples every ``hop_length``, windowed and transformed. Returns a complex tensor of shape
    ``(*, n_freq, n_frames)``; ``return_complex=False`` gives its real view.
    """
    if return_complex is None:
        raise RuntimeError("stft requires the return_complex parameter be given for real inputs")
    if isinstance(input, ComplexTensor):
        raise RuntimeError("stft: complex input signals are not supported")
    if input.ndim not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, got shape {tuple(input.shape)}")
    hop_length = hop_length or n_fft // 4
    win_length = win_length or n_fft
    if not 0 < win_length <= n_fft:
        raise RuntimeError(f"stft: expected 0 < win_length <= n_fft, got win_length={win_length}, n_fft={n_fft}")
    if hop_length <= 0:
        raise RuntimeError(f"stft: expected hop_length > 0, got {hop_length}")
    x = input if input.ndim == 2 else input.unsqueeze(0)
    if center:
        p = n_fft // 2
        x = oneflow.nn.functional.pad(x.unsqueeze(1), [p, p], mode=pad_mode).squeeze(1)
    if x.shape[-1] < n_fft:
        raise RuntimeError(f"stft: expected 0 < n_fft <= {x.shape[-1]}, got n_fft={n_fft}")
    w = _padded_window("stft", window, win_length, n_fft, x)
    frames = x.unfold(-1, n_fft, hop_length) * w
    onesided = True if onesided is None else onesided
    norm = "ortho" if normalized else "backward"
    spec = _fft.rfft(frames, dim=-1, norm=norm) if onesided else _fft.fft(frames, dim=-1, norm=norm)
    spec = spec.transpose(-1, -2)
    if input.ndim == 1:
        spec = spec.squeeze(0)
    return spec if return_complex else spec._ri


def istft(
    input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
    onesided=None, length=None, return_complex=False,
):  # fmt: skip
    """istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
    onesided=None, length=None, return_complex=False) -> Tensor

    The inverse of :func:`stft` by windowed overlap-add.
    """
    if not isinstance(input, ComplexTensor):
        raise RuntimeError(f"istft: expected a complex tensor, got {getattr(input, 'dtype', type(input).__name__)}")
    hop_length = hop_length or n_fft // 4
    win_length = win_length or n_fft
    spec = input if input.ndim == 3 else input.unsqueeze(0)
    n_frames = spec.shape[-1]
    onesided = spec.shape[-2] != n_fft if onesided is None else onesided
    norm = "ortho" if normalized else "backward"
    frames_c = spec.transpose(-1, -2)
    if onesided:
        frames = _fft.irfft(frames_c, n=n_fft, dim=-1, norm=norm)
    else:
        frames = _fft.ifft(frames_c, n=n_fft, dim=-1, norm=norm)
        if return_complex:
            raise RuntimeError("istft: return_complex=True is not supported")
        frames = frames.real
    w = _padded_window("istft", window, win_length, n_fft, frames)
    frames = frames * w
    total = n_fft + hop_length * (n_frames - 1)
    fold = oneflow.nn.functional.fold
    y = fold(frames.transpose(-1, -2), (1, total), (1, n_fft), stride=(1, hop_length)).reshape(frames.shape[0], total)
    wsq = (w * w).reshape(1, n_fft, 1).expand(1, n_fft, n_frames)
    env = fold(wsq, (1, total), (1, n_fft), stride=(1, hop_length)).reshape(total)
    start = n_fft // 2 if center else 0
    end = total - n_fft // 2 if center else total
    if length is not None:
        end = start + length
    y, env = y[:, start:end], env[start:end]
    if bool((env.abs() < 1e-11).any()):
        raise RuntimeError("istft: window overlap add min: the window envelope is zero somewhere (NOLA fails)")
    y = y / env
    if length is not None and y.shape[-1] < length:
        y = oneflow.nn.functional.pad(y, [0, length - y.shape[-1]])
    return y if input.ndim == 3 else y.squeeze(0)


def _tensor_stft(self, *args, **kwargs):
    return stft(self, *args, **kwargs)


def install(namespace: dict) -> None:
    namespace["stft"] = stft
    namespace["istft"] = istft
    oneflow.Tensor.stft = _tensor_stft
    oneflow.Tensor.istft = lambda self, *args, **kwargs: istft(self, *args, **kwargs)
    _ = _pack
