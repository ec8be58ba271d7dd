"""The LKJ distribution over Cholesky factors of correlation matrices."""

from __future__ import annotations

import math

import oneflow
from oneflow.distributions import constraints
from oneflow.distributions.dirichlet import Beta
from oneflow.distributions.distribution import Distribution
from oneflow.distributions.utils import broadcast_all

__all__ = ["LKJCholesky"]


def _mvlgamma(a, p: int):
    """The multivariate log-gamma function of dimension ``p``."""
    result = p * (p - 1) / 4 * math.log(math.pi)
    for j in range(p):
        result = result + oneflow.lgamma(a - j / 2)
    return result


class LKJCholesky(Distribution):
    """The LKJ distribution on lower Cholesky factors ``L`` of ``dim x dim`` correlation matrices
    ``L L^T``, with density proportional to ``det(L L^T) ** (concentration - 1)``; sampled by the
    onion method.

    Args:
        dim (int): the matrix size (>= 2).
        concentration (float or Tensor): eta (> 0); 1 is uniform over correlation matrices.
        validate_args (bool, optional): check the parameters and values.
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim: int, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = oneflow.arange(self.dim - 1, dtype=self.concentration.dtype, device=self.concentration.device)
        offset = oneflow.cat([oneflow.zeros((1,), dtype=offset.dtype, device=offset.device), offset])
        self._beta = Beta(offset + 0.5, marginal_conc.unsqueeze(-1) - 0.5 * offset)
        super().__init__(batch_shape, (dim, dim), validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = oneflow.Size(tuple(batch_shape))
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(tuple(batch_shape) + (self.dim,))
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=()):
        with oneflow.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            u = oneflow.randn(tuple(self._extended_shape(sample_shape)), dtype=y.dtype, device=y.device).tril(-1)
            norm = u.pow(2).sum(-1, keepdim=True).sqrt()
            u_sphere = u / norm
            first_row = oneflow.arange(self.dim, device=y.device).reshape(-1, 1) == 0
            u_sphere = oneflow.where(first_row, oneflow.zeros_like(u_sphere), u_sphere)
            w = y.sqrt() * u_sphere
            diag = (1 - w.pow(2).sum(-1)).clamp(min=oneflow.finfo(w.dtype).tiny).sqrt()
            return w + oneflow.diag_embed(diag)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = oneflow.arange(2, self.dim + 1, dtype=value.dtype, device=value.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = (order * diag_elems.log()).sum(-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        normalize = 0.5 * dm1 * math.log(math.pi) + _mvlgamma(alpha - 0.5, dm1) - oneflow.lgamma(alpha) * dm1
        return unnormalized - normalize
