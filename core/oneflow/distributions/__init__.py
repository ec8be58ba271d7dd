"""Probability distributions with sampling, reparameterized sampling and log-densities, as
``torch.distributions``: parameters and values are oneflow Tensors, gradients flow through
``log_prob``, ``entropy``, ``kl_divergence`` and ``rsample``."""

from oneflow.distributions import constraints
from oneflow.distributions.bernoulli import Bernoulli
from oneflow.distributions.categorical import Categorical, OneHotCategorical
from oneflow.distributions.dirichlet import Beta, Dirichlet
from oneflow.distributions.distribution import Distribution
from oneflow.distributions.exp_family import ExponentialFamily
from oneflow.distributions.gamma import Exponential, Gamma
from oneflow.distributions.kl import kl_divergence, register_kl
from oneflow.distributions.multivariate_normal import MultivariateNormal
from oneflow.distributions.normal import Normal
from oneflow.distributions.uniform import Uniform

__all__ = [
    "Bernoulli",
    "Beta",
    "Categorical",
    "Dirichlet",
    "Distribution",
    "Exponential",
    "ExponentialFamily",
    "Gamma",
    "MultivariateNormal",
    "Normal",
    "OneHotCategorical",
    "Uniform",
    "constraints",
    "kl_divergence",
    "register_kl",
]
