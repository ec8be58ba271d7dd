"""The base class of probability distributions."""

from __future__ import annotations

import warnings

import oneflow
from oneflow.distributions import constraints
from oneflow.distributions.utils import lazy_property

__all__ = ["Distribution"]


def _size(shape) -> oneflow.Size:
    return oneflow.Size(tuple(shape))


class Distribution:
    """Base class of probability distributions.

    A distribution has a ``batch_shape`` (independent, differently parameterized copies) and an
    ``event_shape`` (the shape of one draw): ``sample(sample_shape)`` has shape
    ``sample_shape + batch_shape + event_shape``.

    Args:
        batch_shape (Size, optional): the batch shape.
        event_shape (Size, optional): the event shape.
        validate_args (bool, optional): check the parameters and the values given to
            ``log_prob``/``cdf``; ``None`` uses the default (see
            :meth:`set_default_validate_args`), which is ``True`` unless Python runs with ``-O``.
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Sets whether new distributions validate their arguments by default.

        Raises:
            ValueError: if ``value`` is not ``True`` or ``False``.
        """
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args: bool | None = None):
        self._batch_shape = _size(batch_shape)
        self._event_shape = _size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(
                    f"{self.__class__} does not define `arg_constraints`. Please set `arg_constraints = {{}}` or"
                    " initialize the distribution with `validate_args=False` to turn off validation.",
                    stacklevel=2,
                )
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue
                if param not in self.__dict__ and isinstance(getattr(type(self), param, None), lazy_property):
                    continue  # the parameter given is the other of probs/logits
                value = getattr(self, param)
                valid = constraint.check(value)
                if not bool(valid.all()):
                    raise ValueError(
                        f"Expected parameter {param} ({type(value).__name__} of shape {tuple(value.shape)}) of"
                        f" distribution {self!r} to satisfy the constraint {constraint!r}, but found invalid"
                        f" values:\n{value}"
                    )

    def expand(self, batch_shape, _instance=None):
        """A new distribution with its batch dimensions expanded to ``batch_shape`` (parameters
        are expanded views, no copies).

        Args:
            batch_shape (Size): the desired batch shape.
        """
        raise NotImplementedError

    @property
    def batch_shape(self) -> oneflow.Size:
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self) -> oneflow.Size:
        """The shape of a single sample (without batching)."""
        return self._event_shape

    @property
    def arg_constraints(self) -> dict:
        """Maps each parameter name to the constraint its values must satisfy."""
        raise NotImplementedError

    @property
    def support(self):
        """The constraint the samples satisfy."""
        raise NotImplementedError

    @property
    def mean(self):
        """The mean of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement mean")

    @property
    def mode(self):
        """The mode of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        """The variance of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement variance")

    @property
    def stddev(self):
        """The standard deviation of the distribution."""
        return self.variance.sqrt()

    def sample(self, sample_shape=()):
        """Draws a sample (or a batch of ``sample_shape`` samples) without gradient."""
        with oneflow.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        """Draws a reparameterized sample: gradients flow back to the parameters."""
        raise NotImplementedError

    def sample_n(self, n: int):
        """Draws ``n`` samples (deprecated: use ``sample((n,))``)."""
        warnings.warn("sample_n will be deprecated. Use .sample((n,)) instead", UserWarning, stacklevel=2)
        return self.sample(oneflow.Size((n,)))

    def log_prob(self, value):
        """The log of the probability density (or mass) at ``value``."""
        raise NotImplementedError

    def cdf(self, value):
        """The cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value):
        """The inverse of the cumulative distribution function at ``value``."""
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True):
        """All the values of a discrete distribution's support, along a new leftmost dimension
        (expanded over the batch when ``expand``)."""
        raise NotImplementedError

    def entropy(self):
        """The entropy, over the batch shape."""
        raise NotImplementedError

    def perplexity(self):
        """``exp(entropy)``, over the batch shape."""
        return oneflow.exp(self.entropy())

    def _extended_shape(self, sample_shape=()) -> oneflow.Size:
        if not isinstance(sample_shape, oneflow.Size):
            sample_shape = _size(sample_shape)
        return _size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value) -> None:
        if not isinstance(value, oneflow.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.shape) - len(self._event_shape)
        if tuple(value.shape[event_dim_start:]) != tuple(self._event_shape):
            raise ValueError(
                f"The right-most size of value must match event_shape: {tuple(value.shape)} vs"
                f" {tuple(self._event_shape)}."
            )
        actual = tuple(value.shape)
        expected = tuple(self._batch_shape) + tuple(self._event_shape)
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {actual} vs {expected}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(
                f"{self.__class__} does not define `support` to enable sample validation. Please initialize the"
                " distribution with `validate_args=False` to turn off validation.",
                stacklevel=2,
            )
            return
        valid = support.check(value)
        if not bool(valid.all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be within the"
                f" support ({support!r}) of the distribution {self!r}, but found invalid values:\n{value}"
            )

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom __init__ method must"
                " also define a custom .expand() method."
            )
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self) -> str:
        names = [k for k, _ in self.arg_constraints.items() if k in self.__dict__]
        parts = []
        for p in names:
            v = self.__dict__[p]
            parts.append(f"{p}: {v if v.numel() == 1 else v.size()}")
        return self.__class__.__name__ + "(" + ", ".join(parts) + ")"
