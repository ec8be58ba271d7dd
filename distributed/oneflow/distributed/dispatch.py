"""Running an op on global tensors: choose an sbp signature, box the inputs, run locally.

The core calls :func:`handle` (full op name, arguments bound in schema order) for every op call
with a global tensor among its tensor arguments. Per placement axis, the op's rule (the family
its declaration names, :mod:`oneflow.distributed.sbp_families`) lists the 1-D signatures valid
for the call's global shapes; the cheapest one for the inputs' current sbp wins (cost: the bytes
the conversions move; ties go to fewer conversions, then to the rule's order). The inputs are
boxed to it, the op runs on the local tensors (or the rule's local computation does), and the
outputs become global tensors with the signature's output sbp. An op declared broadcast-only runs
with every input broadcast (always correct, the same as one process, and costly); an op declared
unsupported, or one that writes into an argument whose sbp no signature keeps, raises
NotImplementedError naming the op and why.
"""

from __future__ import annotations

import math

import oneflow
from oneflow import _C
from oneflow.distributed import _boxing_collectives as _coll
from oneflow.distributed import _layout, boxing, env
from oneflow.distributed.sbp import B, nd_repr

_INF = float("inf")
_TENSOR_LIST = "tuple of Tensors"  # the schema type name of Tensor[]


class OpInfo:
    """What dispatch needs of an op's schema."""

    __slots__ = ("full_name", "name", "overload", "arg_names", "arg_types", "mutated", "defaults", "returns", "inplace",
                 "index", "sbp_family", "sbp_params", "sbp_reason")

    def __init__(self, full_name: str) -> None:
        name, overload, args, returns = _C._op_schema_info(full_name)
        self.full_name, self.name, self.overload = full_name, name, overload
        self.arg_names = [a[0] for a in args]
        self.arg_types = [a[1] for a in args]
        self.mutated = [a[4] for a in args]
        self.defaults = [(a[5], a[6]) for a in args]
        self.returns = returns
        self.inplace = bool(args) and args[0][4]
        self.index = {n: i for i, n in enumerate(self.arg_names)}
        sbp = _C.op_info(full_name)["sbp"]  # declared with the op (core/framework/op_traits.h)
        self.sbp_family, self.sbp_params, self.sbp_reason = sbp["family"], sbp["params"], sbp["reason"]


_infos: dict = {}


def op_info(full_name: str) -> OpInfo:
    info = _infos.get(full_name)
    if info is None:
        info = _infos[full_name] = OpInfo(full_name)
    return info


def call_op(full_name: str, *args, **kwargs):
    """Runs op ``full_name`` on local tensors (global tensor objects count as their local part),
    with Python's argument binding and the schema's defaults."""
    info = op_info(full_name)
    values = list(args)
    for name in info.arg_names[len(values):]:
        if name in kwargs:
            values.append(kwargs.pop(name))
        else:
            has_default, default = info.defaults[len(values)]
            if not has_default:
                raise TypeError(f"{full_name}(): missing argument '{name}'")
            values.append(default)
    if kwargs:
        raise TypeError(f"{full_name}(): unexpected arguments {sorted(kwargs)}")
    return _C._call_op(full_name, values)


class Meta:
    """The global meta of one tensor input."""

    __slots__ = ("shape", "dtype", "sbp", "itemsize")

    def __init__(self, shape, dtype, nd_sbp, itemsize) -> None:
        self.shape, self.dtype, self.sbp, self.itemsize = tuple(shape), dtype, tuple(nd_sbp), itemsize

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def nbytes(self) -> int:
        return math.prod(self.shape) * self.itemsize


class Call:
    """One op call on global tensors: its arguments and its tensor inputs ("slots").

    ``slots[i]`` is (argument index, list index or None) of tensor input i, in argument order
    with list elements flattened; ``metas[i]`` its meta, or None for a Python number standing in
    a tensor argument.
    """

    def __init__(self, info: OpInfo, args: list) -> None:
        self.info, self.args = info, args
        self.slots, self.values, self.metas = [], [], []
        self.placement = None
        for i, (t, a) in enumerate(zip(info.arg_types, args)):
            if t == _TENSOR_LIST and a is not None:
                for j, v in enumerate(a):
                    self._add(i, j, v)
            elif t == "Tensor" and a is not None:
                self._add(i, None, a)

    def _add(self, i: int, j, v) -> None:
        if isinstance(v, _global_type()):
            d = v.__dict__
            placement = d["_gt_placement"]
            if self.placement is None:
                self.placement = placement
            elif placement != self.placement:
                raise RuntimeError(
                    f"{self.info.name}(): the global tensor arguments have different placements "
                    f"({self.placement} and {placement}); move them to one with to_global(placement=...) first"
                )
            meta = Meta(d["_gt_shape"], v.dtype, d["_gt_sbp"], _element_size(v))
        elif isinstance(v, oneflow.Tensor):
            raise RuntimeError(
                f"{self.info.name}(): expected all tensor arguments to be global, but argument "
                f"'{self.info.arg_names[i]}' is a local tensor of shape {list(v.shape)}; convert it with "
                "to_global(placement, sbp) (or the global ones with to_local())"
            )
        else:
            meta = None  # a Python number
        self.slots.append((i, j))
        self.values.append(v)
        self.metas.append(meta)

    def arg(self, name: str, default=None):
        i = self.info.index.get(name)
        return default if i is None else self.args[i]

    def shape(self, k: int) -> tuple:
        m = self.metas[k]
        return () if m is None else m.shape

    def describe(self) -> str:
        parts = []
        for (i, j), m in zip(self.slots, self.metas):
            name = self.info.arg_names[i] + ("" if j is None else f"[{j}]")
            parts.append(f"{name}: number" if m is None else f"{name}: {list(m.shape)} {nd_repr(m.sbp)}")
        return ", ".join(parts)


def _global_type():
    from oneflow.distributed.global_tensor import GlobalTensor

    return GlobalTensor


_element_size = oneflow.Tensor.element_size


def _freeze(v):
    """A hashable stand-in of an argument value, for the plan cache."""
    if isinstance(v, (list, tuple)):
        return tuple(_freeze(x) for x in v)
    try:
        hash(v)
        return (type(v), v)
    except TypeError:
        return (type(v), repr(v))


class Sig:
    """A 1-D signature: the sbp of each tensor input (None: any, for absent ones) and output.

    ``outs`` is a list, or ALL_B for "every output broadcast"; ``sizes[j]`` gives the global size
    of each split dimension of output j (the rules know them from the inputs' global shapes).
    """

    __slots__ = ("ins", "outs", "sizes")

    def __init__(self, ins, outs, sizes=None) -> None:
        self.ins, self.outs, self.sizes = tuple(ins), outs, sizes or {}

    def out(self, j: int):
        return B if self.outs is ALL_B else self.outs[j]

    def __repr__(self) -> str:
        outs = "B..." if self.outs is ALL_B else ", ".join(s.short() for s in self.outs)
        return f"({', '.join('-' if s is None else s.short() for s in self.ins)}) -> ({outs})"


ALL_B = object()


class Rule:
    """What a rule says about one call.

    Args:
        cands: the valid 1-D signatures.
        local: optional ``local(call, args, chosen)`` computing the outputs from the boxed local
            arguments ``args`` (schema order) and the chosen signature per axis ``chosen``.
        nest_safe: whether two placement axes may split the same tensor dimension.
        reslice: for random ops: box each output back to this input's sbp afterwards.
        empty_ok: whether the local kernels accept empty parts (uneven splits of a dimension
            smaller than the number of ranks); when not, such splits are not chosen.
    """

    __slots__ = ("cands", "local", "nest_safe", "reslice", "empty_ok")

    def __init__(self, cands, local=None, nest_safe: bool = True, reslice=None, empty_ok: bool = True) -> None:
        self.cands, self.local, self.nest_safe, self.reslice = cands, local, nest_safe, reslice
        self.empty_ok = empty_ok


def all_b(call: Call) -> Sig:
    return Sig([B] * len(call.slots), ALL_B)


# ---- choosing ---------------------------------------------------------------------------------


def _cost_1d(src, dst, meta: Meta, n: int) -> float:
    if src == dst or dst is None:
        return 0.0
    step = boxing.Step(0, src, dst)
    extra = meta.nbytes() / n if step.kind() == "local zero padding" else 0.0
    return step.moved_fraction(n) * meta.nbytes() + extra


def _sig_cost(call: Call, sig: Sig, axis: int, fixed: set) -> tuple:
    n = call.placement.hierarchy[axis]
    total, changes = 0.0, 0
    for k, (meta, want) in enumerate(zip(call.metas, sig.ins)):
        if want is None:
            continue
        if meta is None:
            if not want.is_broadcast():
                return (_INF, 0)
            continue
        have = meta.sbp[axis]
        if have != want:
            if k in fixed:
                return (_INF, 0)
            total += _cost_1d(have, want, meta, n)
            changes += 1
    return (total, changes)


def _split_dims(sig: Sig, k: int, outs: bool):
    s = sig.out(k) if outs else sig.ins[k]
    return s.axis if s is not None and s.is_split() else None


def _nest_conflict(call: Call, chosen: list, sig: Sig) -> bool:
    for prev in chosen:
        for k in range(len(call.slots)):
            a, b = _split_dims(prev, k, False), _split_dims(sig, k, False)
            if a is not None and a == b:
                return True
        if prev.outs is not ALL_B and sig.outs is not ALL_B:
            for j in range(min(len(prev.outs), len(sig.outs))):
                a, b = _split_dims(prev, j, True), _split_dims(sig, j, True)
                if a is not None and a == b:
                    return True
    return False


def _makes_empty(call: Call, chosen: list, sig: Sig, axis: int) -> bool:
    """Whether ``sig`` on ``axis`` leaves some rank an empty part of an input."""
    hierarchy = call.placement.hierarchy
    for k, (meta, want) in enumerate(zip(call.metas, sig.ins)):
        if meta is None or want is None or not want.is_split():
            continue
        size = meta.shape[want.axis]
        for a, prev in enumerate(chosen):
            s = prev.ins[k]
            if s is not None and s.is_split() and s.axis == want.axis:
                size //= hierarchy[a]
        if size < hierarchy[axis]:
            return True
    return False


def choose(call: Call, rule: Rule, fixed: set) -> list:
    """The signature per placement axis."""
    chosen = []
    cands = rule.cands
    for axis in range(call.placement.ndim):
        best, best_key = None, None
        for idx, sig in enumerate(cands):
            if len(sig.ins) != len(call.slots):
                raise AssertionError(f"rule of {call.info.full_name} gave {len(sig.ins)} inputs for {len(call.slots)}")
            if not rule.nest_safe and _nest_conflict(call, chosen, sig):
                continue
            if not rule.empty_ok and idx > 0 and _makes_empty(call, chosen, sig, axis):
                continue
            c, changes = _sig_cost(call, sig, axis, fixed)
            if c == _INF:
                continue
            key = (c, changes, idx)
            if best_key is None or key < best_key:
                best, best_key = sig, key
        if best is None:
            raise NotImplementedError(
                f"{call.info.full_name}: no sbp signature on placement axis {axis} keeps the sbp of the argument(s) it "
                f"writes into ({call.describe()}); convert them with to_global(sbp=...) first"
            )
        chosen.append(best)
    return chosen


# ---- running ----------------------------------------------------------------------------------


def _flatten_outputs(result):
    if isinstance(result, oneflow.Tensor):
        return [result], None
    if isinstance(result, list):
        return list(result), list
    return list(result), type(result)


def _rebuild(outs: list, kind):
    if kind is None:
        return outs[0]
    if kind is list:
        return outs
    if kind is tuple:
        return tuple(outs)
    return kind(*outs)


def _out_nd(chosen: list, j: int) -> tuple:
    return tuple(sig.out(j) for sig in chosen)


def _out_shape(chosen: list, j: int, local_shape: tuple) -> list:
    shape = list(local_shape)
    for sig in chosen:
        s = sig.out(j)
        if s.is_split():
            size = sig.sizes.get(j, {}).get(s.axis)
            if size is None:
                raise AssertionError(f"signature {sig} does not give the global size of output {j} dim {s.axis}")
            shape[s.axis] = size
    return shape


def run(call: Call, rule: Rule, chosen: list):
    """Boxes the inputs, runs the local computation and wraps the outputs."""
    placement = call.placement
    if call.info.inplace and call.values[0].__dict__.get("_gt_detached_view"):
        raise NotImplementedError(
            f"{call.info.full_name}: this global tensor is a view made after its base was converted to another "
            "sbp (e.g. indexing along a split dimension), so writing into it would not reach the base; convert "
            "the base with to_global(sbp=...) first, or write into a copy"
        )
    args = list(call.args)
    lists = {}
    converted = False
    for k, ((i, j), v, meta) in enumerate(zip(call.slots, call.values, call.metas)):
        if meta is None:
            continue
        if v.__dict__.get("_gt_detached_view"):
            converted = True
        target = tuple(sig.ins[k] if sig.ins[k] is not None else meta.sbp[a] for a, sig in enumerate(chosen))
        if target != meta.sbp:
            local = boxing.box_local(v, placement, meta.shape, meta.sbp, target)
            if local is None:
                local = v
            else:
                converted = True
        else:
            local = v
        if j is None:
            args[i] = local
        else:
            lists.setdefault(i, list(args[i]))[j] = local
    for i, lst in lists.items():
        args[i] = lst
    if rule.local is not None:
        result = rule.local(call, args, chosen)
    else:
        result = _C._call_op(call.info.full_name, args)
    return _wrap_outputs(call, rule, chosen, result, converted)


def _wrap_outputs(call: Call, rule: Rule, chosen: list, result, converted: bool):
    """The local ``result`` of ``call`` as global tensors."""
    from oneflow.distributed.global_tensor import GlobalTensor, _alias, wrap

    placement = call.placement
    coord = placement.coord(env.get_rank())
    if coord is None:  # outside the placement: stand-ins of the first rank's parts
        coord = (0,) * placement.ndim
    outs, kind = _flatten_outputs(result)
    originals = {id(v) for v in call.values}
    wrapped = []
    for j, out in enumerate(outs):
        nd = _out_nd(chosen, j)
        gshape = _out_shape(chosen, j, tuple(oneflow.Tensor.size(out)))
        if id(out) in originals:
            # The op returned an argument (in place, or an identity like contiguous()).
            if isinstance(out, GlobalTensor) and out.sbp == nd and tuple(out.shape) == tuple(gshape):
                wrapped.append(out)
                continue
            out = _view_alias(out)
        want = _layout.local_shape(gshape, nd, placement.hierarchy, coord)
        have = tuple(oneflow.Tensor.size(out))
        if want != have:
            raise AssertionError(
                f"internal error in the sbp rule of {call.info.full_name}: signature "
                f"{[repr(s) for s in chosen]} gave a local output of shape {list(have)} where the global shape "
                f"{gshape} with sbp {nd_repr(nd)} puts {list(want)}"
            )
        if type(out) is not _C.Tensor:
            out = _alias(out)
        wrapped.append(wrap(out, placement, nd, gshape))
        if converted and call.info.returns and call.info.returns[0][2]:
            wrapped[-1].__dict__["_gt_detached_view"] = True  # a view of a temporary
    if rule.reslice is not None:
        src_meta = call.metas[rule.reslice]
        nd_back = tuple(B if s.is_partial_sum() else s for s in src_meta.sbp)
        wrapped = [w.to_global(sbp=nd_back) if tuple(w.shape) == src_meta.shape else w for w in wrapped]
    return _rebuild(wrapped, kind)


def _view_alias(t):
    """A new tensor object viewing ``t`` with its autograd history (for outputs that are inputs)."""
    return _C._call_op("view", [t, list(oneflow.Tensor.size(t))])


# (op, placement, input metas, other arguments) -> (rule, chosen signatures): the choice depends
# on nothing else, and making it costs more than running a small op.
_plans: dict = {}
_PLAN_CACHE_SIZE = 8192


def _plan_key(call: Call):
    metas = tuple(None if m is None else (m.shape, m.dtype, m.sbp) for m in call.metas)
    tensor_args = {i for i, _ in call.slots}
    others = tuple(_freeze(a) for i, a in enumerate(call.args) if i not in tensor_args)
    numbers = tuple(_freeze(v) for v, m in zip(call.values, call.metas) if m is None)
    return (call.info.full_name, call.placement, metas, others, numbers)


# ---- the fast path ------------------------------------------------------------------------------
#
# Most calls on global tensors need no boxing: the inputs already have the sbp of the chosen
# signature, and the outputs' global meta follows from the inputs' meta and the other arguments
# alone. For those, handle() keys the call cheaply (the ids of the inputs' placement and sbp
# objects, which global_tensor.wrap interns, their global shapes and dtypes, the other arguments)
# and, once a first call went the full way, runs the local kernel straight away and stamps the
# outputs with the meta recorded then. The full way stays the reference: a call that could differ
# from it (boxing, rules with their own local computation, in-place ops, views of converted
# tensors, outputs that are inputs, data-dependent output sizes, tracing) never gets a fast plan.

_SLOW = object()  # the plan of a key that always goes the full way
_GT = _GP = None  # GlobalTensor and GlobalParameter (set by global_tensor when it installs the hook)
_CT = _C.Tensor
_call_op = _C._call_op
# full name -> whether calls of the op may go fast.
_fast_ops: dict = {}
# key -> (plan, objects the key names by id); see handle().
_fast: dict = {}


def _set_types(global_tensor, global_parameter) -> None:
    global _GT, _GP
    _GT, _GP = global_tensor, global_parameter


def _may_go_fast(full_name: str) -> bool:
    info = op_info(full_name)
    # Broadcast-only ops include those whose output sizes depend on the values.
    fast = info.sbp_family not in ("unsupported", "broadcast_only") and not any(info.mutated)
    _fast_ops[full_name] = fast
    return fast


def _list_key(values):
    """The key part of a list argument (of tensors or numbers), or None: go the full way."""
    part = []
    for a in values:
        t = type(a)
        if t is _GT or t is _GP:
            d = a.__dict__
            if "_gt_detached_view" in d:
                return None
            part.append((id(d["_gt_placement"]), id(d["_gt_sbp"]), d["_gt_shape"], a.dtype))
        else:
            part.append((t, a))
    return tuple(part)


def _key_refs(args) -> list:
    """The placement and sbp objects a call's key names by id: a stored plan keeps them alive,
    so that no other object takes their ids while it exists."""
    refs = []
    for a in args:
        for v in a if type(a) is list else (a,):
            if type(v) is _GT or type(v) is _GP:
                d = v.__dict__
                refs += (d["_gt_placement"], d["_gt_sbp"])
    return refs


def _fast_plan(call: Call, rule: Rule, chosen: list, result):
    """What the fast path needs to repeat this call (already run the full way), or _SLOW."""
    info = call.info
    if rule.local is not None or rule.reslice is not None or info.inplace:
        return _SLOW
    for k, meta in enumerate(call.metas):
        if meta is None:
            continue
        for a, sig in enumerate(chosen):
            want = sig.ins[k]
            if want is not None and want != meta.sbp[a]:
                return _SLOW  # boxing
    if isinstance(result, oneflow.Tensor):
        outs, kind = [result], None
    elif isinstance(result, (list, tuple)):
        outs, kind = list(result), type(result)
    else:
        return _SLOW
    values = {id(v) for v in call.values}
    metas = []
    for out in outs:
        if type(out) is not _GT or id(out) in values:
            return _SLOW
        d = out.__dict__
        if "_gt_detached_view" in d:
            return _SLOW
        metas.append({"_gt_placement": d["_gt_placement"], "_gt_sbp": d["_gt_sbp"], "_gt_shape": d["_gt_shape"]})
    return (metas[0], None, rule, chosen) if kind is None else (metas, kind, rule, chosen)


def handle(full_name: str, args: list):
    """The core's dispatch hook: ``full_name`` called with global tensors among ``args``."""
    fast = _fast_ops.get(full_name)
    if fast is None:
        fast = _may_go_fast(full_name)
    if not fast or _TRACE is not None:
        return _handle(full_name, args, None)
    # The key, inline: this is the path every small op on global tensors takes.
    key = [full_name]
    for a in args:
        t = type(a)
        if t is _GT or t is _GP:
            d = a.__dict__
            if "_gt_detached_view" in d:
                return _handle(full_name, args, None)
            key.append((id(d["_gt_placement"]), id(d["_gt_sbp"]), d["_gt_shape"], a.dtype))
        elif t is list:
            part = _list_key(a)
            if part is None:
                return _handle(full_name, args, None)
            key.append(part)
        else:
            key.append((t, a))
    key = tuple(key)
    try:
        entry = _fast.get(key)
    except TypeError:  # an unhashable argument
        return _handle(full_name, args, None)
    if entry is None:
        return _handle(full_name, args, key)
    plan = entry[0]
    if plan is _SLOW:
        return _handle(full_name, args, None)
    meta, kind, rule, chosen = plan
    result = _call_op(full_name, args)
    if kind is None:
        if type(result) is _CT:  # a new tensor (an argument returned would be global)
            result.__class__ = _GT
            result.__dict__.update(meta)
            return result
    elif all(type(r) is _CT for r in result):
        for r, m in zip(result, meta):
            r.__class__ = _GT
            r.__dict__.update(m)
        return _rebuild(list(result), kind)
    # Not what the first call gave (an argument returned): wrap it the full way.
    return _wrap_outputs(Call(op_info(full_name), args), rule, chosen, result, False)


def _handle(full_name: str, args: list, key):
    """The full way: choose (or look up) the signatures, box, run, wrap; with ``key``, record
    the fast plan of this call."""
    from oneflow.distributed import sbp_families

    info = op_info(full_name)
    if info.sbp_family == "unsupported":
        raise NotImplementedError(f"{full_name}() is not supported on global tensors: {info.sbp_reason}")
    call = Call(info, args)
    if call.placement is None:  # only numbers in tensor slots: cannot happen through the hook
        return _C._call_op(full_name, args)
    _coll.register_placement(call.placement)
    plan_key = _plan_key(call)
    cached = _plans.get(plan_key)
    if cached is None:
        rule = sbp_families.rule_for(call)
        fixed = set()
        for k, (i, _j) in enumerate(call.slots):
            if info.mutated[i] and call.metas[k] is not None:
                fixed.add(k)
        chosen = choose(call, rule, fixed)
        if len(_plans) >= _PLAN_CACHE_SIZE:
            _plans.clear()
        _plans[plan_key] = (rule, chosen)
    else:
        rule, chosen = cached
    if _TRACE is not None:
        _TRACE.append((full_name, tuple(m.sbp if m else None for m in call.metas), tuple(chosen)))
    result = run(call, rule, chosen)
    if key is not None:
        refs = _key_refs(args)
        if len(_fast) >= _PLAN_CACHE_SIZE:
            _fast.clear()
        _fast[key] = (_fast_plan(call, rule, chosen, result), refs)
    return result


_TRACE = None


class trace:
    """``with dispatch.trace() as log:`` records (op, input sbp, chosen signature per axis)."""

    def __enter__(self) -> list:
        global _TRACE
        self._saved, _TRACE = _TRACE, []
        return _TRACE

    def __exit__(self, *exc) -> None:
        global _TRACE
        _TRACE = self._saved
