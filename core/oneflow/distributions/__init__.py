"""Probability distributions with sampling, reparameterized sampling and log-densities, as
``torch.distributions``: parameters and values are oneflow Tensors, gradients flow through
``log_prob``, ``entropy``, ``kl_divergence`` and ``rsample``."""

from oneflow.distributions import (
    constraints,
    kl_cross,  # noqa: F401 (registers the cross-family KLs)
    transforms,
)
from oneflow.distributions.bernoulli import Bernoulli
from oneflow.distributions.categorical import Categorical, OneHotCategorical, OneHotCategoricalStraightThrough
from oneflow.distributions.constraint_registry import biject_to, transform_to
from oneflow.distributions.continuous_bernoulli import ContinuousBernoulli
from oneflow.distributions.dirichlet import Beta, Dirichlet
from oneflow.distributions.discrete import Binomial, Geometric, Poisson
from oneflow.distributions.distribution import Distribution
from oneflow.distributions.exp_family import ExponentialFamily
from oneflow.distributions.extreme_value import GeneralizedPareto, Gumbel, Pareto, Weibull
from oneflow.distributions.gamma import Chi2, Exponential, Gamma
from oneflow.distributions.independent import Independent
from oneflow.distributions.kl import kl_divergence, register_kl
from oneflow.distributions.laplace import Cauchy, Laplace
from oneflow.distributions.lkj_cholesky import LKJCholesky
from oneflow.distributions.lowrank_multivariate_normal import LowRankMultivariateNormal
from oneflow.distributions.mixture_same_family import MixtureSameFamily
from oneflow.distributions.multinomial import Multinomial, NegativeBinomial
from oneflow.distributions.multivariate_normal import MultivariateNormal
from oneflow.distributions.normal import Normal
from oneflow.distributions.ratio_families import FisherSnedecor, Kumaraswamy, LogisticNormal
from oneflow.distributions.relaxed import RelaxedBernoulli, RelaxedOneHotCategorical
from oneflow.distributions.student_t import StudentT
from oneflow.distributions.transformed import HalfCauchy, HalfNormal, InverseGamma, LogNormal
from oneflow.distributions.transformed_distribution import TransformedDistribution
from oneflow.distributions.transforms import (
    AbsTransform,
    AffineTransform,
    CatTransform,
    ComposeTransform,
    CorrCholeskyTransform,
    CumulativeDistributionTransform,
    ExpTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    PowerTransform,
    ReshapeTransform,
    SigmoidTransform,
    SoftmaxTransform,
    SoftplusTransform,
    StackTransform,
    StickBreakingTransform,
    TanhTransform,
    Transform,
    identity_transform,
)
from oneflow.distributions.uniform import Uniform
from oneflow.distributions.von_mises import VonMises
from oneflow.distributions.wishart import Wishart

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "Bernoulli",
    "Binomial",
    "CatTransform",
    "Cauchy",
    "Chi2",
    "ComposeTransform",
    "ContinuousBernoulli",
    "CorrCholeskyTransform",
    "CumulativeDistributionTransform",
    "ExpTransform",
    "GeneralizedPareto",
    "Geometric",
    "Gumbel",
    "HalfCauchy",
    "HalfNormal",
    "InverseGamma",
    "Independent",
    "IndependentTransform",
    "Kumaraswamy",
    "LKJCholesky",
    "Laplace",
    "LogNormal",
    "LogisticNormal",
    "LowRankMultivariateNormal",
    "LowerCholeskyTransform",
    "Pareto",
    "Poisson",
    "PositiveDefiniteTransform",
    "PowerTransform",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftmaxTransform",
    "SoftplusTransform",
    "TanhTransform",
    "StackTransform",
    "StickBreakingTransform",
    "StudentT",
    "Transform",
    "TransformedDistribution",
    "Weibull",
    "Wishart",
    "biject_to",
    "identity_transform",
    "Beta",
    "Categorical",
    "Dirichlet",
    "Distribution",
    "Exponential",
    "ExponentialFamily",
    "FisherSnedecor",
    "Gamma",
    "MixtureSameFamily",
    "Multinomial",
    "MultivariateNormal",
    "NegativeBinomial",
    "Normal",
    "OneHotCategorical",
    "OneHotCategoricalStraightThrough",
    "Uniform",
    "VonMises",
    "constraints",
    "kl_divergence",
    "register_kl",
    "transform_to",
    "transforms",
]
