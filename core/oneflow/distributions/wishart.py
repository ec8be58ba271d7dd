"""The Wishart distribution over positive-definite matrices."""

from __future__ import annotations

import math
import numbers
import warnings

import oneflow
from oneflow.distributions import _special, constraints
from oneflow.distributions.exp_family import ExponentialFamily
from oneflow.distributions.gamma import Chi2
from oneflow.distributions.lkj_cholesky import _mvlgamma
from oneflow.distributions.multivariate_normal import _precision_to_scale_tril
from oneflow.distributions.utils import lazy_property

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x, p: int):
    """The derivative of the multivariate log-gamma function of dimension ``p``."""
    shifted = x.unsqueeze(-1) - oneflow.arange(p, dtype=x.dtype, device=x.device) / 2
    return _special.digamma(shifted).sum(-1)


def _cholesky_solve(b, L):
    """(L L^T)^{-1} b, by two triangular solves."""
    batch = oneflow.broadcast_shapes(tuple(b.shape[:-2]), tuple(L.shape[:-2]))
    L = L.expand(tuple(batch) + tuple(L.shape[-2:]))
    b = b.expand(tuple(batch) + tuple(b.shape[-2:]))
    y = oneflow.linalg.solve_triangular(L, b, upper=False)
    return oneflow.linalg.solve_triangular(L.transpose(-2, -1), y, upper=True)


class Wishart(ExponentialFamily):
    """A Wishart distribution over ``p x p`` positive-definite matrices with ``df`` degrees of
    freedom and scale given by exactly one of ``covariance_matrix``, ``precision_matrix`` and
    ``scale_tril``; ``rsample`` uses the Bartlett decomposition (chi-squared diagonal, normal
    lower part), reparameterized.

    Args:
        df (float or Tensor): degrees of freedom (> p - 1).
        covariance_matrix (Tensor): positive-definite scale matrix.
        precision_matrix (Tensor): its inverse.
        scale_tril (Tensor): its lower Cholesky factor.
        validate_args (bool, optional): check the parameters and values.
    """

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {
            "covariance_matrix": constraints.positive_definite,
            "precision_matrix": constraints.positive_definite,
            "scale_tril": constraints.lower_cholesky,
            "df": constraints.greater_than(self.event_shape[-1] - 1),
        }

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        given = [p for p in (covariance_matrix, precision_matrix, scale_tril) if p is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        param = given[0]
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional leading batch dimensions")
        if isinstance(df, numbers.Number):
            batch_shape = tuple(param.shape[:-2])
            self.df = oneflow.tensor(float(df), dtype=param.dtype, device=param.device)
        else:
            batch_shape = tuple(oneflow.broadcast_shapes(tuple(param.shape[:-2]), tuple(df.shape)))
            self.df = df.expand(batch_shape)
        event_shape = tuple(param.shape[-2:])
        if bool((self.df <= event_shape[-1] - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {event_shape[-1] - 1}.")
        if scale_tril is not None:
            self.scale_tril = param.expand(batch_shape + (-1, -1))
        elif covariance_matrix is not None:
            self.covariance_matrix = param.expand(batch_shape + (-1, -1))
        else:
            self.precision_matrix = param.expand(batch_shape + (-1, -1))
        if bool((self.df < event_shape[-1]).any()):
            warnings.warn(
                "Low df values detected. Singular samples are highly likely to occur for ndim - 1 < df < ndim.",
                stacklevel=2,
            )
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = oneflow.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        self._dist_chi2 = self._chi2(batch_shape)

    def _chi2(self, batch_shape):
        p = self._event_shape[-1]
        steps = oneflow.arange(
            p, dtype=self._unbroadcasted_scale_tril.dtype, device=self._unbroadcasted_scale_tril.device
        ).expand(tuple(batch_shape) + (-1,))
        return Chi2(self.df.unsqueeze(-1) - steps)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = tuple(batch_shape)
        cov_shape = batch_shape + tuple(self.event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        super(Wishart, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._dist_chi2 = new._chi2(batch_shape)
        new._validate_args = self._validate_args
        return new

    def _full(self, value):
        return value.expand(tuple(self._batch_shape) + tuple(self._event_shape))

    @lazy_property
    def scale_tril(self):
        return self._full(self._unbroadcasted_scale_tril)

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return self._full(L @ L.transpose(-2, -1))

    @lazy_property
    def precision_matrix(self):
        eye = oneflow.eye(
            self._event_shape[-1],
            dtype=self._unbroadcasted_scale_tril.dtype,
            device=self._unbroadcasted_scale_tril.device,
        )
        return self._full(_cholesky_solve(eye, self._unbroadcasted_scale_tril))

    def _df_matrix(self, value):
        return value.reshape(tuple(self._batch_shape) + (1, 1))

    @property
    def mean(self):
        return self._df_matrix(self.df) * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = oneflow.where(factor <= 0, oneflow.full_like(factor, math.nan), factor)
        return self._df_matrix(factor) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        diag = V.diagonal(dim1=-2, dim2=-1)
        return self._df_matrix(self.df) * (V.pow(2) + diag.unsqueeze(-1) * diag.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape):
        p = self._event_shape[-1]
        eps = oneflow.finfo(self._unbroadcasted_scale_tril.dtype).eps
        diag = oneflow.diag_embed(self._dist_chi2.rsample(sample_shape).sqrt().clamp(min=eps))
        shape = tuple(sample_shape) + tuple(self._batch_shape) + (p, p)
        lower = oneflow.randn(shape, dtype=diag.dtype, device=diag.device).tril(-1)
        chol = self._unbroadcasted_scale_tril @ (diag + lower)
        return chol @ chol.transpose(-2, -1)

    def rsample(self, sample_shape=(), max_try_correction=None):
        """Bartlett samples; singular ones (possible when df < p) are redrawn up to
        ``max_try_correction`` times (default 10), with a warning."""
        max_try_correction = 10 if max_try_correction is None else max_try_correction
        sample = self._bartlett_sampling(sample_shape)
        bad = ~self.support.check(sample)
        if bool(bad.any()):
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                fresh = self._bartlett_sampling(sample_shape)
                sample = oneflow.where(bad.unsqueeze(-1).unsqueeze(-1), fresh, sample)
                bad = ~self.support.check(sample)
                if not bool(bad.any()):
                    break
        return sample

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu, p = self.df, self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        half_log_det = L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        trace = _cholesky_solve(value, L).diagonal(dim1=-2, dim2=-1).sum(-1)
        return (
            -nu * (p * _LOG_2 / 2 + half_log_det)
            - _mvlgamma(nu / 2, p)
            + (nu - p - 1) / 2 * oneflow.linalg.slogdet(value)[1]
            - trace / 2
        )

    def entropy(self):
        nu, p = self.df, self._event_shape[-1]
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return (
            (p + 1) * (p * _LOG_2 / 2 + half_log_det)
            + _mvlgamma(nu / 2, p)
            - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p)
            + nu * p / 2
        )

    @property
    def _natural_params(self):
        return -self.precision_matrix / 2, (self.df - self._event_shape[-1] - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        return (y + (p + 1) / 2) * (-oneflow.linalg.slogdet(-2 * x)[1] + _LOG_2 * p) + _mvlgamma(y + (p + 1) / 2, p)
