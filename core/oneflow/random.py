"""Random numbers: seeding, generators, and random tensors.

``oneflow.manual_seed``, ``seed``, ``initial_seed``, ``get_rng_state`` and
``set_rng_state`` act on the default CPU generator, ``oneflow.default_generator``.
A ``oneflow.Generator`` has a stream of its own: pass it as ``generator=`` to the
functions here and to ``Tensor.uniform_``, ``normal_``, ``random_`` and
``bernoulli_``; drawing from it leaves the default stream untouched.

The generator is Philox4x32-10 (a counter-based generator keyed by the seed), so
the same seed gives the same values on every run, but not the values PyTorch's
CPU generator (a Mersenne Twister) gives. Its state, ``get_state()``, is 16 bytes
(the seed and the offset into its stream), where PyTorch's CPU state has 5056.
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Sequence

import oneflow
from oneflow import _C
from oneflow._creation import _device, _finish, _global_plugin, _is_global, _like_placement, _sizes, get_default_dtype

Generator = _C.Generator
Generator.__module__ = "oneflow"

#: The generator every random function uses unless given ``generator=``.
default_generator = _C.default_generator


def manual_seed(seed) -> Generator:
    """Seeds the default generator (``seed`` is converted with ``int()``; negative
    values count modulo 2**64) and returns it."""
    seed = builtins.int(seed)
    if oneflow._C._cuda_built():  # PyTorch's manual_seed seeds every device
        oneflow._C._cuda_manual_seed(seed % (1 << 64))
    return default_generator.manual_seed(seed)


def seed() -> builtins.int:
    """Seeds the default generator from a non-deterministic source; returns the seed."""
    return default_generator.seed()


def initial_seed() -> builtins.int:
    """The seed of the default generator's current stream."""
    return default_generator.initial_seed()


def get_rng_state() -> oneflow.Tensor:
    """The default generator's state, a uint8 tensor (see ``set_rng_state``)."""
    return default_generator.get_state()


def set_rng_state(new_state: oneflow.Tensor) -> None:
    """Restores the default generator's state from ``get_rng_state()``."""
    default_generator.set_state(new_state)


def _check_generator(generator, op: str) -> None:
    if generator is not None and not isinstance(generator, Generator):
        raise TypeError(f"{op}(): argument 'generator' must be oneflow.Generator, not {type(generator).__name__}")


def _shape(args: tuple, size, op: str) -> tuple:
    if size is not None:
        if args:
            raise TypeError(f"{op}() got multiple values for argument 'size'")
        args = (size,)
    return _sizes(args, op)


def _random_tensor(op: str, shape, dtype, device, generator, requires_grad, fill):
    _check_generator(generator, op)
    t = _C.empty(shape, dtype or get_default_dtype(), _device(device))
    fill(t)
    return _finish(t, requires_grad)


def _global_random(make, placement, sbp, requires_grad, device):
    """A global random tensor: every rank draws the whole tensor (so the values equal those of the
    same-seeded local call, whatever the sbp) and keeps its part."""
    return _global_plugin().make_global(lambda s, dev: make(dev), placement, sbp, requires_grad, device)


def rand(*size, generator=None, dtype=None, device=None, requires_grad: builtins.bool = False, placement=None,
         sbp=None, **kwargs):
    """Uniform samples from [0, 1): ``rand(2, 3)``, ``rand((2, 3))`` or ``rand(size=(2, 3))``.

    With ``placement`` and ``sbp`` the result is a global tensor."""
    shape = _shape(size, _size_kwarg(kwargs, "rand"), "rand")
    if placement is not None or sbp is not None:
        return _global_random(lambda dev: rand(shape, generator=generator, dtype=dtype, device=dev), placement, sbp,
                              requires_grad, device)
    return _random_tensor("rand", shape, dtype, device, generator, requires_grad,
                          lambda t: t.uniform_(0, 1, generator=generator))


def randn(*size, generator=None, dtype=None, device=None, requires_grad: builtins.bool = False, placement=None,
          sbp=None, **kwargs):
    """Standard normal samples: ``randn(2, 3)``, ``randn((2, 3))`` or ``randn(size=(2, 3))``.

    With ``placement`` and ``sbp`` the result is a global tensor."""
    shape = _shape(size, _size_kwarg(kwargs, "randn"), "randn")
    if placement is not None or sbp is not None:
        return _global_random(lambda dev: randn(shape, generator=generator, dtype=dtype, device=dev), placement,
                              sbp, requires_grad, device)
    return _random_tensor("randn", shape, dtype, device, generator, requires_grad,
                          lambda t: t.normal_(0, 1, generator=generator))


def _size_kwarg(kwargs: dict, op: str):
    size = kwargs.pop("size", None)
    if kwargs:
        raise TypeError(f"{op}() got an unexpected keyword argument '{next(iter(kwargs))}'")
    return size


def _int_arg(value, op: str, name: str, pos: int | None = None) -> builtins.int:
    if isinstance(value, builtins.bool) or not hasattr(value, "__index__") or isinstance(value, oneflow.Tensor):
        where = f" (position {pos})" if pos else ""
        raise TypeError(f"{op}(): argument '{name}'{where} must be int, not {type(value).__name__}")
    return operator.index(value)


def _size_arg(value, op: str) -> tuple:
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{op}(): argument 'size' must be tuple of ints, not {type(value).__name__}")
    return _sizes((value,), op)


_MISSING = object()


def _bind(params: tuple, args: tuple, kwargs: dict) -> dict | None:
    """``args`` and ``kwargs`` bound to ``params`` (all required), or None when they do not fit."""
    if len(args) > len(params):
        return None
    bound = dict(zip(params, args))
    for k, v in kwargs.items():
        if k not in params or k in bound:
            return None
        bound[k] = v
    return bound if len(bound) == len(params) else None


def randint(*args, low=_MISSING, high=_MISSING, size=_MISSING, generator=None, dtype=None, device=None,
            requires_grad: builtins.bool = False, placement=None, sbp=None):
    """Integers drawn uniformly from [low, high) (``low`` defaults to 0), int64 unless ``dtype`` says.

    ``randint(high, size)`` or ``randint(low, high, size)``, positionally or by keyword;
    ``size`` is a tuple or list.
    """
    given = {k: v for k, v in (("low", low), ("high", high), ("size", size)) if v is not _MISSING}
    bound = _bind(("high", "size"), args, given) or _bind(("low", "high", "size"), args, given)
    if bound is None:
        got = ", ".join([type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in given.items()])
        raise TypeError(
            f"randint() received an invalid combination of arguments - got ({got}), but expected one of:\n"
            " * (int high, tuple of ints size, *, Generator generator, dtype dtype, device device, "
            "bool requires_grad)\n"
            " * (int low, int high, tuple of ints size, *, Generator generator, dtype dtype, device device, "
            "bool requires_grad)"
        )
    lo = _int_arg(bound.get("low", 0), "randint", "low")
    hi = _int_arg(bound["high"], "randint", "high")
    shape = _size_arg(bound["size"], "randint")
    if placement is not None or sbp is not None:
        return _global_random(lambda dev: randint(lo, hi, shape, generator=generator, dtype=dtype, device=dev),
                              placement, sbp, requires_grad, device)
    return _random_tensor("randint", shape, dtype or oneflow.int64, device, generator, requires_grad,
                          lambda t: t.random_(lo, hi, generator=generator))


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad: builtins.bool = False, placement=None,
             sbp=None):
    """A random permutation of ``0 .. n-1`` (int64 unless ``dtype`` says); a global tensor with
    ``placement`` and ``sbp``."""
    _check_generator(generator, "randperm")
    n = _int_arg(n, "randperm", "n", 1)
    if placement is not None or sbp is not None:
        return _global_random(lambda dev: randperm(n, generator=generator, dtype=dtype, device=dev), placement, sbp,
                              requires_grad, device)
    t = _C.ops.randperm(n, generator=generator, dtype=dtype, device=device)
    return _finish(t, requires_grad)


def normal(mean=0.0, std=1.0, size: Sequence[builtins.int] | None = None, *, generator=None, dtype=None,
           device=None, requires_grad: builtins.bool = False, placement=None, sbp=None):
    """Normal samples with the given mean and standard deviation.

    ``normal(mean_tensor, std_tensor)`` broadcasts the two, ``normal(mean_tensor, std=1.0)`` and
    ``normal(mean, std_tensor)`` take the tensor's shape and dtype, and
    ``normal(mean, std, size)`` makes a tensor of ``size`` (with ``dtype``, ``device`` and
    ``requires_grad``); with ``placement`` and ``sbp`` too, a global tensor.
    """
    _check_generator(generator, "normal")
    tensors = isinstance(mean, oneflow.Tensor) or isinstance(std, oneflow.Tensor)
    if tensors:
        if size is not None or dtype is not None or device is not None or requires_grad or placement is not None \
                or sbp is not None:
            raise TypeError("normal(): size, dtype, device and requires_grad go with a float mean and std only")
        return _C.ops.normal(mean, std, generator=generator)
    if size is None:
        raise TypeError(
            "normal() received an invalid combination of arguments - got (float, float), but expected one of:\n"
            " * (Tensor mean, Tensor std)\n * (Tensor mean, float std)\n * (float mean, Tensor std)\n"
            " * (float mean, float std, tuple of ints size)"
        )
    for name, v in (("mean", mean), ("std", std)):
        not_float = not isinstance(v, (builtins.int, builtins.float)) and not hasattr(v, "__float__")
        if isinstance(v, builtins.bool) or not_float:
            raise TypeError(f"normal(): argument '{name}' must be float, not {type(v).__name__}")
    shape = _sizes((size,), "normal")
    if placement is not None or sbp is not None:
        return _global_random(
            lambda dev: normal(mean, std, shape, generator=generator, dtype=dtype, device=dev), placement, sbp,
            requires_grad, device)
    t = _C.ops.normal(builtins.float(mean), builtins.float(std), shape, generator=generator, dtype=dtype,
                      device=device)
    return _finish(t, requires_grad)


def bernoulli(input, p=None, *, generator=None):
    """0/1 samples with probabilities ``input`` (each in [0, 1]), or ``p`` for every element.

    The result has ``input``'s shape and dtype.
    """
    _check_generator(generator, "bernoulli")
    if p is None:
        return _C.ops.bernoulli(input, generator=generator)
    return _C.ops.bernoulli(input, p, generator=generator)


def _like(input, dtype, device, op):
    if not isinstance(input, oneflow.Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(input).__name__}")
    return _C.empty_like(input, dtype or input.dtype, _device(device) if device is not None else input.device)


def rand_like(input, *, generator=None, dtype=None, device=None, requires_grad: builtins.bool = False,
              placement=None, sbp=None):
    """Uniform samples from [0, 1) laid out like ``input`` (and by default of its dtype and device); a
    global tensor with ``placement``/``sbp`` or a global ``input`` (see :func:`oneflow.zeros_like`)."""
    _check_generator(generator, "rand_like")
    if _is_global(input) or placement is not None or sbp is not None:
        placement, sbp = _like_placement(input, placement, sbp)
        return _global_random(lambda dev: rand(tuple(input.shape), generator=generator, dtype=dtype or input.dtype,
                                               device=dev), placement, sbp, requires_grad, device)
    t = _like(input, dtype, device, "rand_like").uniform_(0, 1, generator=generator)
    return _finish(t, requires_grad)


def randn_like(input, *, generator=None, dtype=None, device=None, requires_grad: builtins.bool = False,
               placement=None, sbp=None):
    """Standard normal samples laid out like ``input`` (and by default of its dtype and device); a
    global tensor with ``placement``/``sbp`` or a global ``input`` (see :func:`oneflow.zeros_like`)."""
    _check_generator(generator, "randn_like")
    if _is_global(input) or placement is not None or sbp is not None:
        placement, sbp = _like_placement(input, placement, sbp)
        return _global_random(lambda dev: randn(tuple(input.shape), generator=generator, dtype=dtype or input.dtype,
                                                device=dev), placement, sbp, requires_grad, device)
    t = _like(input, dtype, device, "randn_like").normal_(0, 1, generator=generator)
    return _finish(t, requires_grad)


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, device=None,
                 requires_grad: builtins.bool = False, placement=None, sbp=None):
    """Integers from [low, high) laid out like ``input``: ``randint_like(x, high)`` or
    ``randint_like(x, low, high)``; a global tensor with ``placement``/``sbp`` or a global ``input``
    (see :func:`oneflow.zeros_like`)."""
    _check_generator(generator, "randint_like")
    if high is None:
        low, high = 0, low
    lo = _int_arg(low, "randint_like", "low")
    hi = _int_arg(high, "randint_like", "high")
    if _is_global(input) or placement is not None or sbp is not None:
        placement, sbp = _like_placement(input, placement, sbp)
        return _global_random(lambda dev: randint(lo, hi, tuple(input.shape), generator=generator,
                                                  dtype=dtype or input.dtype, device=dev),
                              placement, sbp, requires_grad, device)
    t = _like(input, dtype, device, "randint_like").random_(lo, hi, generator=generator)
    return _finish(t, requires_grad)


__all__ = [
    "Generator",
    "bernoulli",
    "default_generator",
    "get_rng_state",
    "initial_seed",
    "manual_seed",
    "normal",
    "rand",
    "rand_like",
    "randint",
    "randint_like",
    "randn",
    "randn_like",
    "randperm",
    "seed",
    "set_rng_state",
]
