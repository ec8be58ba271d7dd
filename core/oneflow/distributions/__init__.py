"""Probability distributions with sampling, reparameterized sampling and log-densities, as
``torch.distributions``: parameters and values are oneflow Tensors, gradients flow through
``log_prob``, ``entropy``, ``kl_divergence`` and ``rsample``."""

from oneflow.distributions import constraints, transforms
from oneflow.distributions.bernoulli import Bernoulli
from oneflow.distributions.categorical import Categorical, OneHotCategorical, OneHotCategoricalStraightThrough
from oneflow.distributions.dirichlet import Beta, Dirichlet
from oneflow.distributions.discrete import Binomial, Geometric, Poisson
from oneflow.distributions.distribution import Distribution
from oneflow.distributions.exp_family import ExponentialFamily
from oneflow.distributions.extreme_value import Gumbel, Pareto, Weibull
from oneflow.distributions.gamma import Chi2, Exponential, Gamma
from oneflow.distributions.independent import Independent
from oneflow.distributions.kl import kl_divergence, register_kl
from oneflow.distributions.laplace import Cauchy, Laplace
from oneflow.distributions.multinomial import Multinomial, NegativeBinomial
from oneflow.distributions.multivariate_normal import MultivariateNormal
from oneflow.distributions.normal import Normal
from oneflow.distributions.student_t import StudentT
from oneflow.distributions.transformed import HalfCauchy, HalfNormal, InverseGamma, LogNormal
from oneflow.distributions.transformed_distribution import TransformedDistribution
from oneflow.distributions.transforms import (
    AbsTransform,
    AffineTransform,
    ComposeTransform,
    ExpTransform,
    IndependentTransform,
    PowerTransform,
    ReshapeTransform,
    SigmoidTransform,
    SoftmaxTransform,
    SoftplusTransform,
    TanhTransform,
    Transform,
    identity_transform,
)
from oneflow.distributions.uniform import Uniform

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "Bernoulli",
    "Binomial",
    "Cauchy",
    "Chi2",
    "ComposeTransform",
    "ExpTransform",
    "Geometric",
    "Gumbel",
    "HalfCauchy",
    "HalfNormal",
    "InverseGamma",
    "Independent",
    "IndependentTransform",
    "Laplace",
    "LogNormal",
    "Pareto",
    "Poisson",
    "PowerTransform",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftmaxTransform",
    "SoftplusTransform",
    "TanhTransform",
    "StudentT",
    "Transform",
    "TransformedDistribution",
    "Weibull",
    "identity_transform",
    "Beta",
    "Categorical",
    "Dirichlet",
    "Distribution",
    "Exponential",
    "ExponentialFamily",
    "Gamma",
    "Multinomial",
    "MultivariateNormal",
    "NegativeBinomial",
    "Normal",
    "OneHotCategorical",
    "OneHotCategoricalStraightThrough",
    "Uniform",
    "constraints",
    "kl_divergence",
    "register_kl",
    "transforms",
]
