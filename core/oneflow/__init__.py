"""OneFlow: a PyTorch-compatible deep learning framework.

``import oneflow as flow`` gives tensors, dtypes and devices with PyTorch's
names and semantics. The packages built on the core (``oneflow.distributed``,
``oneflow.nn.graph``, libai, flowvision, serving) ship as separate wheels; the
ones that live under the ``oneflow`` name are found through this package's
``__path__``.
"""

import pkgutil as _pkgutil

# Plugins installed as separate wheels (or separate Bazel packages) contribute
# subpackages of `oneflow`, e.g. oneflow/distributed from the distributed wheel.
__path__ = _pkgutil.extend_path(__path__, __name__)

from oneflow._version import __version__

try:
    from oneflow import _C
except ImportError as e:  # pragma: no cover - only without a built extension
    raise ImportError(
        "oneflow: the compiled extension oneflow._C could not be loaded "
        f"({e}). Build it with ./tools/bazel, or reinstall the oneflow wheel."
    ) from e

if _C.__version__ != __version__:
    raise ImportError(
        f"oneflow: the Python package is version {__version__} but its compiled extension "
        f"oneflow._C is version {_C.__version__}. Rebuild (./tools/bazel build //core:wheel) "
        "or reinstall the oneflow wheel so that both come from the same build."
    )

from oneflow._size import Size

dtype = _C.dtype
device = _C.device
Tensor = _C.Tensor
for _cls in (dtype, device, Tensor):
    _cls.__module__ = "oneflow"
_C._set_size_type(Size)

bool = _C.dtypes[0]
uint8 = _C.dtype_from_name("uint8")
int8 = _C.dtype_from_name("int8")
int16 = short = _C.dtype_from_name("int16")
int32 = int = _C.dtype_from_name("int32")
int64 = long = _C.dtype_from_name("int64")
float16 = half = _C.dtype_from_name("float16")
bfloat16 = _C.dtype_from_name("bfloat16")
float32 = float = _C.dtype_from_name("float32")
float64 = double = _C.dtype_from_name("float64")

from oneflow import (
    _tensor,
    autograd,
    linalg,
    nn,
    return_types,
)
from oneflow._creation import (
    arange,
    as_tensor,
    channels_last,
    channels_last_3d,
    contiguous_format,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    get_default_dtype,
    is_tensor,
    linspace,
    logspace,
    memory_format,
    ones,
    ones_like,
    preserve_format,
    set_default_dtype,
    tensor,
    zeros,
    zeros_like,
)
from oneflow.autograd import enable_grad, inference_mode, no_grad, set_grad_enabled
from oneflow.random import (
    Generator,
    bernoulli,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    normal,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    seed,
    set_rng_state,
)

_C._set_return_types(return_types)
is_grad_enabled = _C.is_grad_enabled
set_num_threads = _C.set_num_threads
get_num_threads = _C.get_num_threads


def _install_ops(namespace: dict) -> list:
    """oneflow.<op> for every registered op that PyTorch exposes as a function.

    Derived from the op registry: in-place variants stay Tensor methods, and
    private or gradient helper ops stay in oneflow._C.ops.
    """
    installed = []
    for name, _first_arg, inplace in _C.op_table:
        if inplace or name.startswith("_") or name.endswith("_backward") or name in namespace:
            continue
        namespace[name] = getattr(_C.ops, name)
        installed.append(name)
    return installed


# Python-level API: tensor helpers, data loading, mixed precision, checkpoints, optimizers.
from oneflow import amp, cpu, distributions, one_embedding, optim, profiler, special, utils
from oneflow._tensor import nonzero
from oneflow._tensor_ops import *
from oneflow._tensor_ops import __all__ as _tensor_ops_all
from oneflow.amp.autocast_mode import *
from oneflow.serialization import load, save

_op_names = _install_ops(globals())

# OneFlow's own API where PyTorch has no such name or other semantics (issue 15); after the
# registry's ops, so that a OneFlow signature of an op (flow.matmul(..., transpose_a=)) wins.
from oneflow._compat import *
from oneflow._compat import __all__ as _compat_all
from oneflow._oneflow_api import *
from oneflow._oneflow_api import __all__ as _oneflow_api_all
from oneflow._oneflow_ops import *
from oneflow._oneflow_ops import __all__ as _oneflow_ops_all

# OneFlow's fused layers are also reached as oneflow._C.<name>, as OneFlow code calls them.
for _fused in ("fused_linear", "fused_matmul_bias", "fused_mlp"):
    setattr(_C, _fused, getattr(_C.ops, _fused))

# OneFlow's detection ops (flowvision's detectors call them): oneflow.nms, Tensor.nms,
# oneflow.roi_align, nn.functional.deform_conv2d, and the same names under oneflow._C.
from oneflow import _detection_ops
from oneflow._detection_ops import nms, roi_align

Tensor.nms = _detection_ops.nms
for _name in _detection_ops.__all__:
    setattr(_C, _name, getattr(_detection_ops, _name))

# PyTorch's everyday callables that compose this package's ops (issue 16), with their Tensor
# methods and in-place twins; after the registry's ops, which win where both have a name.
from oneflow import _torch_breadth_methods
from oneflow._torch_breadth import __all__ as _torch_breadth_all
from oneflow._torch_breadth_index import __all__ as _torch_breadth_index_all

_torch_breadth_names = [n for n in (*_torch_breadth_all, *_torch_breadth_index_all) if n not in globals()]
for _n in _torch_breadth_names:
    globals()[_n] = _torch_breadth_methods._function(_n)
moveaxis = movedim
_torch_breadth_names += ["moveaxis", *_torch_breadth_methods.install(globals())]

# The remaining torch.Tensor attributes (Tensor.divide, .mT, .type(), .exponential_, ...).
from oneflow import _tensor_breadth

_tensor_breadth.install()
repeat_interleave = _tensor_breadth.repeat_interleave_function  # torch.repeat_interleave
_torch_breadth_names.append("repeat_interleave")

# The linear-algebra names outside oneflow.linalg (lu, lu_solve, geqrf, ...) and their methods.
from oneflow import _linalg_torch_names

_torch_breadth_names += _linalg_torch_names.install(globals())

# Storages, layout, in-place metadata changes and the autograd extras (Tensor.storage(), ...).
from oneflow import _tensor_breadth_more

_torch_breadth_names += _tensor_breadth_more.install(globals())

# More of PyTorch's top level (issue 16): functional forms of Tensor methods, the gamma family,
# sampling, constants and global switches; each name only where nothing above defines it.
from oneflow import _torch_breadth_more

_torch_breadth_more_names = _torch_breadth_more.install(globals())

# Window functions, vmap/cond/compile, and the complex-part functions on real tensors.
from oneflow import _windows_and_transforms

for _n in _windows_and_transforms.__all__:
    if _n not in globals():
        globals()[_n] = getattr(_windows_and_transforms, _n)
        _torch_breadth_more_names.append(_n)
for _n in ("conj_physical", "conj_physical_"):
    if not hasattr(Tensor, _n):
        setattr(Tensor, _n, getattr(_windows_and_transforms, _n))


# Global Tensor names (oneflow.placement, oneflow.env, ...) come from a plugin, the
# oneflow-distributed package, which declares them (see oneflow._plugin); it is imported on first
# use so that `import oneflow` neither needs nor loads it. Without it these names say what to install.
_GLOBAL_API = ("placement", "sbp", "env", "comm", "boxing", "distributed")


def __getattr__(name: str):
    from oneflow import _plugin

    value = _plugin.plugin_attribute(__name__, name, None)
    if value is None:
        if name in _GLOBAL_API:
            from oneflow._creation import _no_global_tensors

            raise ImportError(_no_global_tensors(f"oneflow.{name}"))
        raise AttributeError(f"module 'oneflow' has no attribute '{name}'")
    globals()[name] = value
    return value


def numel(input) -> int:
    """The number of elements of ``input``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"numel(): argument 'input' must be Tensor, not {type(input).__name__}")
    return input.numel()


del _cls

__all__ = [
    "Generator",
    "Size",
    "Tensor",
    "arange",
    "as_tensor",
    "autograd",
    "distributions",
    "bernoulli",
    "bfloat16",
    "bool",
    "default_generator",
    "device",
    "double",
    "dtype",
    "empty",
    "empty_like",
    "enable_grad",
    "expand",
    "eye",
    "flatten",
    "float",
    "float16",
    "float32",
    "float64",
    "from_numpy",
    "full",
    "full_like",
    "get_default_dtype",
    "get_rng_state",
    "half",
    "inference_mode",
    "initial_seed",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "is_grad_enabled",
    "is_tensor",
    "linspace",
    "logspace",
    "long",
    "manual_seed",
    "no_grad",
    "nonzero",
    "normal",
    "numel",
    "ones",
    "ones_like",
    "rand",
    "rand_like",
    "randint",
    "randint_like",
    "randn",
    "randn_like",
    "randperm",
    "seed",
    "set_default_dtype",
    "set_grad_enabled",
    "set_rng_state",
    "short",
    "tensor",
    "uint8",
    "zeros",
    "zeros_like",
    "set_num_threads",
    "get_num_threads",
    "nn",
]  # fmt: skip
__all__.extend(_op_names)  # the ops derived from the registry
__all__.extend(n for n in _tensor_ops_all if n not in __all__)
__all__.append("linalg")
__all__.extend(n for n in (*_compat_all, *_oneflow_api_all, *_oneflow_ops_all, "nms", "roi_align") if n not in __all__)
__all__.extend(n for n in _torch_breadth_names if n not in __all__)
__all__.extend(n for n in _torch_breadth_more_names if n not in __all__)

# Complex dtypes, oneflow.fft, windows and stft (Python compositions over real ops).
from oneflow import _complex_api as _complex_api
from oneflow import _spectral as _spectral
from oneflow import fft

_complex_api.install(globals())
_spectral.install(globals())
has_spectral = True
__all__.extend(
    n
    for n in (
        *("complex64", "complex128", "cfloat", "cdouble", "view_as_real", "view_as_complex", "complex", "polar"),
        *("real", "imag", "conj", "angle", "isreal", "is_complex", "resolve_conj", "resolve_neg", "is_conj"),
        *("is_neg", "has_spectral"),
        *("stft", "istft", "fft", "complex32", "chalf", "conj_physical", "conj_physical_"),
    )
    if n not in __all__
)
