"""oneflow.fft, windows and stft against torch: values and gradients."""

import unittest

import numpy as np
import torch

import oneflow as flow

TOL = dict(atol=1e-9, rtol=1e-9)


def _real(shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return flow.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _cplx(shape, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return flow.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _loss(m, out):
    w = m.tensor(np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape)))
    if out.is_complex():
        return (m.view_as_real(out.resolve_conj()) * m.stack([w, w * 0.3], -1)).sum()
    return (out * w).sum()


class FFTTest(unittest.TestCase):
    def _check(self, fn, make, shape):
        f, t = make(shape)
        out_f, out_t = fn(flow, f), fn(torch, t)
        np.testing.assert_allclose(out_f.detach().numpy(), out_t.detach().resolve_conj().numpy(), **TOL)
        _loss(flow, out_f).backward()
        _loss(torch, out_t).backward()
        np.testing.assert_allclose(f.grad.numpy(), t.grad.resolve_conj().numpy(), **TOL)

    def test_c2c_sizes_norms(self):
        for n in (1, 5, 8, 12, 17, 64, 100):
            for norm in (None, "ortho", "forward"):
                self._check(lambda m, x: m.fft.fft(x, norm=norm), _cplx, (2, n))
                self._check(lambda m, x: m.fft.ifft(x, n=n + 3, norm=norm), _cplx, (n, 2) if n > 1 else (2, 1))
        self._check(lambda m, x: m.fft.fft(x, dim=0), _real, (33, 3))

    def test_real_transforms(self):
        for n in (6, 7, 32, 45):
            for norm in (None, "ortho", "forward"):
                self._check(lambda m, x: m.fft.rfft(x, norm=norm), _real, (3, n))
                self._check(lambda m, x: m.fft.irfft(x, norm=norm), _cplx, (3, n))
                self._check(lambda m, x: m.fft.irfft(x, n=2 * n - 1, norm=norm), _cplx, (3, n))
                self._check(lambda m, x: m.fft.hfft(x, norm=norm), _cplx, (3, n))
                self._check(lambda m, x: m.fft.ihfft(x, norm=norm), _real, (3, n))

    def test_nd(self):
        self._check(lambda m, x: m.fft.fft2(x), _cplx, (2, 6, 10))
        self._check(lambda m, x: m.fft.ifft2(x, s=(4, 9), norm="ortho"), _cplx, (2, 6, 10))
        self._check(lambda m, x: m.fft.fftn(x), _real, (3, 5, 4))
        self._check(lambda m, x: m.fft.ifftn(x, dim=(0, 2)), _cplx, (3, 5, 4))
        self._check(lambda m, x: m.fft.rfft2(x), _real, (4, 7, 6))
        self._check(lambda m, x: m.fft.rfftn(x, s=(5, 8)), _real, (4, 7, 6))
        self._check(lambda m, x: m.fft.irfft2(x), _cplx, (4, 7, 6))
        self._check(lambda m, x: m.fft.irfftn(x, s=(6, 9), norm="forward"), _cplx, (4, 7, 6))

    def test_freq_and_shift(self):
        for n in (1, 6, 7):
            np.testing.assert_allclose(flow.fft.fftfreq(n, 0.5).numpy(), torch.fft.fftfreq(n, 0.5).numpy())
            np.testing.assert_allclose(flow.fft.rfftfreq(n).numpy(), torch.fft.rfftfreq(n).numpy())
        self._check(lambda m, x: m.fft.fftshift(x), _real, (4, 7))
        self._check(lambda m, x: m.fft.ifftshift(x, dim=1), _cplx, (4, 7))

    def test_float32(self):
        for n in (1000, 4096):
            x = np.random.default_rng(n).standard_normal((4, n)).astype(np.float32)
            ours = flow.fft.rfft(flow.tensor(x))
            self.assertIs(ours.dtype, flow.complex64)
            ref = torch.fft.rfft(torch.tensor(x)).numpy()
            self.assertLess(np.abs(ours.numpy() - ref).max(), 1e-3)  # |X| grows to ~sqrt(n) * 4

    def test_bad_input(self):
        with self.assertRaisesRegex(ValueError, "fft: invalid normalization"):
            flow.fft.fft(flow.ones(4), norm="bogus")
        with self.assertRaisesRegex(RuntimeError, "rfft: expected a real"):
            flow.fft.rfft(flow.ones(4).cfloat())
        with self.assertRaisesRegex(RuntimeError, "invalid number of data points"):
            flow.fft.fft(flow.ones(4), n=0)


class SpectralTest(unittest.TestCase):
    def test_windows(self):
        for name in ("hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"):
            for n in (1, 5, 8):
                for periodic in (True, False):
                    ours = getattr(flow, name)(n, periodic, dtype=flow.float64).numpy()
                    ref = getattr(torch, name)(n, periodic, dtype=torch.float64).numpy()
                    np.testing.assert_allclose(ours, ref, atol=1e-12, err_msg=f"{name}({n}, {periodic})")

    def test_stft_istft(self):
        for n_fft, hop, win in ((16, 4, 16), (15, 5, 12)):
            f, t = _real((2, 100))
            wf = flow.hann_window(win, dtype=flow.float64)
            wt = torch.hann_window(win, dtype=torch.float64)
            sf = flow.stft(f, n_fft, hop, win, wf, return_complex=True)
            st = torch.stft(t, n_fft, hop, win, wt, return_complex=True)
            np.testing.assert_allclose(sf.detach().numpy(), st.detach().numpy(), **TOL)
            yf = flow.istft(sf, n_fft, hop, win, wf, length=100)
            yt = torch.istft(st, n_fft, hop, win, wt, length=100)
            np.testing.assert_allclose(yf.detach().numpy(), yt.detach().numpy(), atol=1e-9)
            np.testing.assert_allclose(yf.detach().numpy(), f.detach().numpy(), atol=1e-9)
            _loss(flow, sf).backward()
            _loss(torch, st).backward()
            np.testing.assert_allclose(f.grad.numpy(), t.grad.resolve_conj().numpy(), **TOL)
        with self.assertRaisesRegex(RuntimeError, "return_complex"):
            flow.stft(flow.ones(64), 16)


if __name__ == "__main__":
    unittest.main()
