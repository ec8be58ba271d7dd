"""The Tensor methods and in-place twins of the functions in ``_torch_breadth`` and
``_torch_breadth_index`` (``Tensor.fmax``, ``Tensor.xlogy_``, ``oneflow.sinc_``, ...), for the
names PyTorch has them under. An in-place twin computes the out-of-place result and copies it into
``self``, after PyTorch's checks that the result fits ``self``'s shape and dtype."""

from __future__ import annotations

import oneflow as _flow
from oneflow import _compat
from oneflow import _torch_breadth as _b
from oneflow import _torch_breadth_index as _bi

_Tensor = _flow.Tensor

# Tensor methods PyTorch has, with the function of the same name (self is the first argument).
# Sync with torch.Tensor's names: torch_breadth_test checks each one torch has is here.
METHODS = (
    "allclose", "isclose", "equal", "dsplit", "hsplit", "vsplit", "not_equal", "kron", "cov", "corrcoef", "rot90",
    "inner", "addmv", "addr", "addbmm", "logcumsumexp", "xlogy", "sinc", "fmax", "fmin", "copysign", "gcd", "lcm",
    "nanmean", "count_nonzero", "aminmax", "ravel", "histogram", "flipud", "fliplr", "moveaxis", "index_reduce",
    "scatter_reduce", "select_scatter", "slice_scatter", "diagonal_scatter", "frac", "logit", "heaviside",
    "nextafter", "ldexp", "float_power", "true_divide", "positive", "rad2deg", "deg2rad", "signbit",
)  # fmt: skip

# In-place twins, as Tensor methods (all) and as oneflow functions (those PyTorch has there too).
INPLACE = (
    "not_equal", "addmv", "addr", "addbmm", "xlogy", "sinc", "copysign", "gcd", "lcm", "index_reduce",
    "scatter_reduce", "frac", "logit", "heaviside", "nextafter", "ldexp", "float_power", "true_divide",
    "rad2deg", "deg2rad",
)  # fmt: skip
INPLACE_FUNCTIONS = ("addmv", "xlogy", "sinc", "gcd", "lcm", "frac", "logit", "ldexp", "rad2deg", "deg2rad")


def _function(name: str):
    if name == "moveaxis":
        return _flow.movedim
    for module in (_b, _bi, _compat):
        if hasattr(module, name):
            return getattr(module, name)
    return getattr(_flow, name)


def _inplace(name: str, fn):
    def method(self, *args, **kwargs):
        _b._check_tensor(f"{name}_", "input", self)
        # A clone keeps the values the result's gradient was computed from, which copy_ overwrites.
        base = self.clone() if self.requires_grad and _flow.is_grad_enabled() else self
        result = fn(base, *args, **kwargs)
        if name == "float_power" and self.dtype != _flow.float64:
            raise RuntimeError(
                f"the base given to float_power_ has dtype {_b._dtype_name(self.dtype)} but the operation's "
                "result requires dtype Double"
            )
        if tuple(result.shape) != tuple(self.shape):
            raise RuntimeError(
                f"output with shape {list(self.shape)} doesn't match the broadcast shape {list(result.shape)}"
            )
        if not _b.can_cast(result.dtype, self.dtype):
            raise RuntimeError(
                f"result type {_b._dtype_name(result.dtype)} can't be cast to the desired output type "
                f"{_b._dtype_name(self.dtype)}"
            )
        return self.copy_(result)

    method.__name__ = f"{name}_"
    method.__doc__ = f"In-place ``{name}``: the result is written into ``self``."
    return method


def install(namespace: dict) -> list:
    """Sets the Tensor methods and returns the in-place function names put into ``namespace``."""
    for name in METHODS:
        if not hasattr(_Tensor, name):
            setattr(_Tensor, name, _function(name))
    added = []
    for name in INPLACE:
        fn = _inplace(name, _function(name))
        if not hasattr(_Tensor, name + "_"):
            setattr(_Tensor, name + "_", fn)
        if name in INPLACE_FUNCTIONS and name + "_" not in namespace:
            namespace[name + "_"] = fn
            added.append(name + "_")
    # Registry ops whose in-place twin PyTorch also has as a function (torch.square_).
    for name in ("square_",):
        if name not in namespace and hasattr(_Tensor, name):
            namespace[name] = getattr(_Tensor, name)
            added.append(name)
    return added
