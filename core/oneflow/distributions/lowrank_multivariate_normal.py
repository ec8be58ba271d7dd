"""The multivariate normal with a low-rank plus diagonal covariance ``W W^T + D``."""

from __future__ import annotations

import math

import oneflow
from oneflow.distributions import constraints
from oneflow.distributions.distribution import Distribution
from oneflow.distributions.multivariate_normal import _batch_mahalanobis, _batch_mv
from oneflow.distributions.utils import lazy_property

__all__ = ["LowRankMultivariateNormal"]


def _eye_like(n: int, like):
    return oneflow.eye(n, dtype=like.dtype, device=like.device)


def _capacitance_tril(W, D):
    # Cholesky factor of C = I + W^T D^{-1} W (m x m, m = rank): the small matrix the Woodbury
    # identity and the determinant lemma reduce everything to
    Wt_Dinv = W.transpose(-2, -1) / D.unsqueeze(-2)
    K = oneflow.matmul(Wt_Dinv, W) + _eye_like(W.size(-1), W)
    return oneflow.linalg.cholesky(K)


def _lowrank_logdet(W, D, capacitance_tril):
    # log|W W^T + D| = log|C| + log|D|
    return 2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + D.log().sum(-1)


def _lowrank_mahalanobis(W, D, x, capacitance_tril):
    # x^T (W W^T + D)^{-1} x by Woodbury: x^T D^{-1} x - |C^{-1/2} W^T D^{-1} x|^2
    Wt_Dinv = W.transpose(-2, -1) / D.unsqueeze(-2)
    return (x.pow(2) / D).sum(-1) - _batch_mahalanobis(capacitance_tril, _batch_mv(Wt_Dinv, x))


class LowRankMultivariateNormal(Distribution):
    """A multivariate normal whose covariance is ``cov_factor @ cov_factor.T + diag(cov_diag)``;
    log-densities cost O(n m^2) for rank m instead of O(n^3).

    Args:
        loc (Tensor): the mean, shape ``batch_shape + (n,)``.
        cov_factor (Tensor): the low-rank factor W, shape ``batch_shape + (n, m)``.
        cov_diag (Tensor): the diagonal D (> 0), shape ``batch_shape + (n,)``.
        validate_args (bool, optional): check the parameters and values.
    """

    arg_constraints = {
        "loc": constraints.real_vector,
        "cov_factor": constraints.independent(constraints.real, 2),
        "cov_diag": constraints.independent(constraints.positive, 1),
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = tuple(loc.shape[-1:])
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional leading batch dimensions")
        if tuple(cov_factor.shape[-2:-1]) != event_shape:
            raise ValueError(f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m")
        if tuple(cov_diag.shape[-1:]) != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        try:
            loc_, self.cov_factor, cov_diag_ = oneflow.broadcast_tensors(
                loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1)
            )
        except RuntimeError as e:
            raise ValueError(
                f"Incompatible batch shapes: loc {tuple(loc.shape)}, cov_factor {tuple(cov_factor.shape)},"
                f" cov_diag {tuple(cov_diag.shape)}"
            ) from e
        self.loc = loc_[..., 0]
        self.cov_diag = cov_diag_[..., 0]
        batch_shape = self.loc.shape[:-1]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _capacitance_tril(cov_factor, cov_diag)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LowRankMultivariateNormal, _instance)
        batch_shape = oneflow.Size(tuple(batch_shape))
        loc_shape = tuple(batch_shape) + tuple(self.event_shape)
        new.loc = self.loc.expand(loc_shape)
        new.cov_diag = self.cov_diag.expand(loc_shape)
        new.cov_factor = self.cov_factor.expand(loc_shape + tuple(self.cov_factor.shape[-1:]))
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        super(LowRankMultivariateNormal, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _full(self, value):
        return value.expand(tuple(self._batch_shape) + tuple(self._event_shape) * 2)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        v = self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag
        return v.expand(tuple(self._batch_shape) + tuple(self._event_shape))

    @lazy_property
    def scale_tril(self):
        n = self._event_shape[0]
        d_sqrt = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        dinvsqrt_w = self._unbroadcasted_cov_factor / d_sqrt
        K = oneflow.matmul(dinvsqrt_w, dinvsqrt_w.transpose(-2, -1)) + _eye_like(n, dinvsqrt_w)
        return self._full(d_sqrt * oneflow.linalg.cholesky(K))

    @lazy_property
    def covariance_matrix(self):
        W = self._unbroadcasted_cov_factor
        return self._full(oneflow.matmul(W, W.transpose(-2, -1)) + oneflow.diag_embed(self._unbroadcasted_cov_diag))

    @lazy_property
    def precision_matrix(self):
        Wt_Dinv = self._unbroadcasted_cov_factor.transpose(-2, -1) / self._unbroadcasted_cov_diag.unsqueeze(-2)
        cap = self._capacitance_tril
        A = oneflow.linalg.solve_triangular(
            cap.expand(tuple(Wt_Dinv.shape[:-2]) + tuple(cap.shape[-2:])), Wt_Dinv, upper=False
        )
        return self._full(oneflow.diag_embed(self._unbroadcasted_cov_diag.reciprocal()) - A.transpose(-2, -1) @ A)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        w_shape = shape[:-1] + tuple(self.cov_factor.shape[-1:])
        eps_w = oneflow.randn(w_shape, dtype=self.loc.dtype, device=self.loc.device)
        eps_d = oneflow.randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_cov_factor, eps_w) + self._unbroadcasted_cov_diag.sqrt() * eps_d

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        W, D, cap = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag, self._capacitance_tril
        M = _lowrank_mahalanobis(W, D, value - self.loc, cap)
        log_det = _lowrank_logdet(W, D, cap)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + log_det + M)

    def entropy(self):
        log_det = _lowrank_logdet(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag, self._capacitance_tril)
        H = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + log_det)
        if len(self._batch_shape) == 0:
            return H
        return H.expand(tuple(self._batch_shape))
