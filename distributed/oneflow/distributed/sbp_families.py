"""SBP rule families: for each family an op can declare (``.Sbp(...)`` in its OpDef, see
core/framework/op_traits.h), the 1-D signatures valid for a call's global shapes. No op is named
here: an op says which family it belongs to, with the family's parameters, in its declaration, and
``flow._C.op_info(name)["sbp"]`` reads it back.

A rule gets the :class:`~oneflow.distributed.dispatch.Call` (global shapes and dtypes of the
tensor inputs, the other arguments) and returns a :class:`~oneflow.distributed.dispatch.Rule`.
Signatures list the sbp of every tensor input (Python numbers count as broadcast) and output,
and the global size of each split output dimension. The all-broadcast signature is always listed
(any deterministic op is correct on whole tensors). Rules with a local computation (a mean over a
split dimension, an embedding over a split vocabulary, reshape with local sizes, ...) give it as
``local(call, args, chosen)``.

Families: elementwise and broadcasting ops (partial sums through the linear ones: add/sub of
two partial sums, mul/div of a partial sum by a broadcast), reductions (a sum or mean over a
split dimension gives a partial sum), matmul/mm/bmm/mv/dot/outer/linear/addmm, softmax and
normalizations along unsplit dimensions, convolutions (split batch, split output channels, or a
split input channel giving a partial sum), pools/pads/upsampling (batch and channel), embedding
(split indices, split hidden, or split vocabulary giving a partial sum), gather/index_select,
cat/stack/split/chunk/unbind, reshape/view/flatten where the split survives, squeeze/unsqueeze,
expand, transpose/permute, slicing along unsplit dimensions, losses (a split batch gives a
partial sum), in-place fills and copies, and random ops (drawn on whole tensors on every rank,
then sliced, so that they match one process).
"""

from __future__ import annotations

import oneflow
from oneflow import _C
from oneflow.distributed import _layout
from oneflow.distributed._sbp_common import (
    _call,
    _coord,
    _copy_rule,
    _dropout_rule,
    _fill_rule,
    _random_fill_rule,
    _random_rule,
    _to_dtype_rule,
    _zero_rule,
    along_dim,
    elementwise,
    reduction,
)
from oneflow.distributed._sbp_nn import (
    _addmm_rule,
    _batch_norm_rule,
    _class_loss_rule,
    _constant_pad_rule,
    _conv_rule,
    _cosine_similarity_rule,
    _embedding_rule,
    _gather_rule,
    _group_norm_rule,
    _index_select_rule,
    _layer_norm_rule,
    _linear_rule,
    _matmul_rule,
    _one_hot_rule,
    _outer_rule,
    _pairwise_distance_rule,
    _pointwise_loss_rule,
    _prelu_rule,
    _sdpa_rule,
    spatial,
)
from oneflow.distributed._sbp_shapes import (
    _cat_rule,
    _expand_rule,
    _permute_rule,
    _repeat_rule,
    _reshape_rule,
    _split_rule,
    _squeeze_rule,
    _stack_rule,
    _unsqueeze_rule,
    excluding_dims,
)
from oneflow.distributed.dispatch import ALL_B, Rule, Sig, all_b
from oneflow.distributed.sbp import B, S, nd_repr

# ---- random in place -----------------------------------------------------------------------------


def _random_inplace_rule(call):
    """In-place random ops that read ``self`` (dropout_, bernoulli_): run out of place on the
    whole tensor, then write this rank's part back."""
    m = call.metas[0]
    cands = [Sig([s] + [B] * (len(call.slots) - 1), [s], {0: {s.axis: m.shape[s.axis]}} if s.is_split() else None)
             for s in [S(d) for d in range(m.ndim)] + [B]]

    def local(call, args, chosen):
        from oneflow.distributed.global_tensor import GlobalTensor

        self = call.values[0]
        assert isinstance(self, GlobalTensor)
        full = self.to_global(sbp=tuple(B for _ in self.sbp))
        drawn = _C._call_op(call.info.full_name, [oneflow.Tensor.detach(full).clone()] + list(args[1:]))
        coord = _coord(call)
        if coord is None:
            return args[0]
        nd = tuple(sig.ins[0] for sig in chosen)
        box = _layout.local_box(m.shape, nd, call.placement.hierarchy, coord)
        part = drawn
        for d, (start, length) in enumerate(box):
            part = _call("narrow", part, d, start, length)
        return _call("copy_", args[0], part)

    return Rule(cands, local=local)


# ---- the families, by the names ops declare (core/framework/op_traits.h) ------------------------


def _fixed(fn):
    """A family whose rule takes the declared parameters as keyword arguments."""
    return lambda **params: (lambda call: fn(call, **params)) if params else fn


def _broadcast_only():
    return lambda call: Rule([all_b(call)])


FAMILIES: dict = {
    "elementwise": lambda partial="": elementwise(*(tuple(w) for w in partial.split(",") if w)),
    "reduction": lambda linear=None, nout=1, flat_without_dim=False: reduction(linear, nout, flat_without_dim),
    "along_dim": along_dim,
    "spatial": lambda n, linear=False, input_size_arg=None, nout=None: spatial(
        None if n == "any" else n, linear, input_size_arg, nout),
    "excluding_dims": lambda arg="", linear=False, last=None: excluding_dims(arg, linear, last),
    "broadcast_only": _broadcast_only,
    "to_dtype": _fixed(_to_dtype_rule),
    "fill": _fixed(_fill_rule),
    "zero": _fixed(_zero_rule),
    "copy": _fixed(_copy_rule),
    "matmul": _fixed(_matmul_rule),
    "linear": _fixed(_linear_rule),
    "addmm": _fixed(_addmm_rule),
    "outer": _fixed(_outer_rule),
    "layer_norm": _fixed(_layer_norm_rule),
    "group_norm": _fixed(_group_norm_rule),
    "batch_norm": _fixed(_batch_norm_rule),
    "conv": _fixed(_conv_rule),
    "constant_pad": _fixed(_constant_pad_rule),
    "embedding": _fixed(_embedding_rule),
    "one_hot": _fixed(_one_hot_rule),
    "index_select": _fixed(_index_select_rule),
    "gather": _fixed(_gather_rule),
    "cat": _fixed(_cat_rule),
    "stack": _fixed(_stack_rule),
    "split": _fixed(_split_rule),
    "reshape": _fixed(_reshape_rule),
    "squeeze": _fixed(_squeeze_rule),
    "unsqueeze": _fixed(_unsqueeze_rule),
    "expand": _fixed(_expand_rule),
    "permute": _fixed(_permute_rule),
    "repeat": _fixed(_repeat_rule),
    "pointwise_loss": _fixed(_pointwise_loss_rule),
    "class_loss": _fixed(_class_loss_rule),
    "sdpa": _fixed(_sdpa_rule),
    "prelu": _fixed(_prelu_rule),
    "cosine_similarity": _fixed(_cosine_similarity_rule),
    "pairwise_distance": _fixed(_pairwise_distance_rule),
    "dropout": _fixed(_dropout_rule),
    "random": _fixed(_random_rule),
    "random_fill": _fixed(_random_fill_rule),
    "random_inplace": _fixed(_random_inplace_rule),
}


def _param_value(text: str):
    if text == "":
        return ""
    if text == "None":
        return None
    try:
        return int(text)
    except ValueError:
        return text


def parse_params(params: str) -> dict:
    """The "key=value key=value" words of a declared rule as keyword arguments."""
    out = {}
    for word in params.split():
        key, sep, value = word.partition("=")
        if not sep:
            raise ValueError(f"malformed SBP rule parameter {word!r} in {params!r} (expected key=value)")
        out[key] = _param_value(value)
    return out


_factories: dict = {}


def family_rule(family: str, params: str):
    """The rule function of a declared (family, params) pair, built once."""
    key = (family, params)
    fn = _factories.get(key)
    if fn is None:
        if family not in FAMILIES:
            raise KeyError(f"unknown SBP rule family {family!r} (known: {sorted(FAMILIES)})")
        fn = _factories[key] = FAMILIES[family](**parse_params(params))
    return fn


def rule_for(call) -> Rule:
    """The rule the call's op declares (its OpDef's .Sbp(...))."""
    info = call.info
    if info.sbp_family == "unsupported":
        raise NotImplementedError(
            f"{info.full_name}() is not supported on global tensors ({info.sbp_reason}); "
            f"arguments: {call.describe()}"
        )
    return family_rule(info.sbp_family, info.sbp_params)(call)


def describe(sig_list) -> str:
    """The chosen signature per axis, for messages."""
    return " x ".join(repr(s) for s in sig_list)


_ = (ALL_B, nd_repr)
