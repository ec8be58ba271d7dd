"""Complex dtypes and ops against torch: values and conjugate-Wirtinger gradients."""

import unittest

import numpy as np
import torch

import oneflow as flow

ATOL = 1e-10


def _pair(shape, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return flow.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


class ComplexCreationTest(unittest.TestCase):
    def test_numpy_round_trip_and_dtypes(self):
        a = np.array([1 + 2j, -3.5j], dtype=np.complex64)
        t = flow.tensor(a)
        self.assertIs(t.dtype, flow.complex64)
        self.assertIs(flow.cfloat, flow.complex64)
        np.testing.assert_array_equal(t.numpy(), a)
        self.assertTrue(t.is_complex() and flow.is_complex(t))
        self.assertFalse(flow.is_complex(flow.ones(2)))
        self.assertIn("dtype=oneflow.complex128", repr(flow.tensor(a).cdouble()))
        self.assertNotIn("dtype", repr(flow.tensor(a.astype(np.complex128)).cfloat()))

    def test_complex_polar_zeros(self):
        re, im = flow.tensor([1.0, 2.0], dtype=flow.float64), flow.tensor([3.0, -4.0], dtype=flow.float64)
        z = flow.complex(re, im)
        np.testing.assert_allclose(z.numpy(), [1 + 3j, 2 - 4j])
        p = flow.polar(flow.tensor([2.0], dtype=flow.float64), flow.tensor([0.5], dtype=flow.float64))
        np.testing.assert_allclose(p.numpy(), [2 * np.exp(0.5j)], atol=ATOL)
        z0 = flow.zeros(2, 3, dtype=flow.complex128)
        self.assertEqual(tuple(z0.shape), (2, 3))
        self.assertIs(z0.dtype, flow.complex128)
        self.assertIs(flow.ones(2).cdouble().dtype, flow.complex128)
        h = flow.ones(2).chalf()
        self.assertIs(h.dtype, flow.complex32)
        np.testing.assert_array_equal(h.numpy(), [1, 1])
        zc = flow.tensor([1 + 1j])
        flow.conj_physical_(zc)
        np.testing.assert_array_equal(zc.numpy(), [1 - 1j])

    def test_view_as_real_shares_storage(self):
        r = flow.zeros(3, 2)
        z = flow.view_as_complex(r)
        r[1, 1] = 5.0
        self.assertEqual(z.numpy()[1], 5j)
        self.assertIs(flow.view_as_real(z), r)

    def test_bad_input(self):
        with self.assertRaisesRegex(RuntimeError, "view_as_complex.*size 2"):
            flow.view_as_complex(flow.zeros(3, 3))
        with self.assertRaisesRegex(RuntimeError, "view_as_real"):
            flow.view_as_real(flow.zeros(3))
        with self.assertRaisesRegex(RuntimeError, "complex: expected real"):
            flow.complex(flow.zeros(2, dtype=flow.int64), flow.zeros(2, dtype=flow.int64))
        with self.assertRaisesRegex(RuntimeError, "imag"):
            flow.imag(flow.zeros(2))


class ComplexOpsTest(unittest.TestCase):
    def _check(self, fn, nargs=1, shape=(3, 4), real_out=False):
        ours = [_pair(shape, i) for i in range(nargs)]
        out_f = fn(flow, *[o[0] for o in ours])
        out_t = fn(torch, *[o[1] for o in ours])
        np.testing.assert_allclose(out_f.detach().numpy(), out_t.detach().numpy(), atol=1e-9, rtol=1e-9)
        loss_f = (out_f if real_out else out_f.abs()).sum()
        loss_t = (out_t if real_out else out_t.abs()).sum()
        loss_f.backward()
        loss_t.backward()
        for f, t in ours:
            np.testing.assert_allclose(f.grad.numpy(), t.grad.numpy(), atol=1e-9, rtol=1e-9)

    def test_arith(self):
        self._check(lambda m, z, w: z * w, 2)
        self._check(lambda m, z, w: z + w * 2 - z / w, 2)
        self._check(lambda m, z: -z * (1 + 2j))

    def test_unary(self):
        for fn in (lambda m, z: m.exp(z), lambda m, z: m.log(z), lambda m, z: m.sqrt(z),
                   lambda m, z: z.reciprocal(), lambda m, z: z ** 3, lambda m, z: m.sgn(z) * 2,
                   lambda m, z: z.conj() * z.real):  # fmt: skip
            self._check(fn)

    def test_real_outputs(self):
        self._check(lambda m, z: m.angle(z), real_out=True)
        self._check(lambda m, z: z.imag * m.real(z), real_out=True)
        self._check(lambda m, z: m.abs(z), real_out=True)

    def test_cat_stack_indexing(self):
        self._check(lambda m, z, w: m.cat([z, w], 1)[1:, ::2], 2)
        self._check(lambda m, z, w: m.stack([z, w], -1)[..., 0] * w.T.T, 2)
        self._check(lambda m, z: z.reshape(4, 3).permute(1, 0).flatten(), 1)

    def test_reductions_and_matmul(self):
        self._check(lambda m, z: z.sum(0) + z.mean(1, keepdim=True).sum(), shape=(3, 4))
        self._check(lambda m, z, w: m.matmul(z, w.transpose(0, 1)), 2, shape=(3, 4))


if __name__ == "__main__":
    unittest.main()
