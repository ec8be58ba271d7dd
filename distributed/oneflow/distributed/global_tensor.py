"""Global tensors: a local tensor on each rank plus the global meta (shape, placement, sbp).

A :class:`GlobalTensor` is a ``oneflow.Tensor`` whose own data is this rank's local part, so
local autograd history is the global tensor's. It carries the global shape, the placement and
one sbp per placement axis, and answers ``shape``, ``numel``, ``numpy``, ``repr`` ... with their
global meaning. Ops on global tensors reach :mod:`oneflow.distributed.dispatch` through the
core's dispatch hook; conversions go through :mod:`oneflow.distributed.boxing`.

Gradients follow the local-autograd convention of :func:`oneflow.distributed.sbp.dual`; a leaf
with a broadcast axis sums its gradient over that axis when backward reaches it (a hook), so
``.grad`` of a broadcast parameter is the broadcast gradient a single process would compute.

Every rank must run the same global-tensor code: conversions and printing are collectives.
Ranks outside a tensor's placement hold a stand-in local tensor (zeros of the placement's first
rank's part), run the same local ops on it and skip the collectives, so that every rank records
the same autograd graph (see :func:`oneflow.distributed.boxing.standin_shape`); ``to_local()``
gives them an empty tensor.
"""

from __future__ import annotations

import math

import oneflow
from oneflow import _C
from oneflow.distributed import _boxing_collectives as _coll
from oneflow.distributed import _layout, boxing, env
from oneflow.distributed.placement import placement as Placement
from oneflow.distributed.sbp import B, dual, normalize

# global_seeds, global_grads and module_to_global are what the core's oneflow.autograd,
# Module.to_global and nn.Parameter(global tensor) call.
__all__ = ["GlobalParameter", "GlobalTensor", "global_grads", "global_seeds", "make_global", "module_to_global",
           "to_global"]

_Tensor = oneflow.Tensor
_base_grad = _C.Tensor.__dict__["grad"]
_base_data = _C.Tensor.__dict__["data"]
_base_requires_grad = _C.Tensor.__dict__["requires_grad"]


def _rank() -> int:
    return env.get_rank()


# ---- making global tensor objects ---------------------------------------------------------------


def wrap(local, placement, nd_sbp: tuple, gshape) -> GlobalTensor:
    """Turns the plain tensor object ``local`` (one this package made, referenced nowhere else)
    into a global tensor with this meta."""
    if type(local) is not _C.Tensor and type(local) is not GlobalTensor:
        raise TypeError(f"internal error: cannot make a global tensor from a {type(local).__name__}")
    local.__class__ = GlobalTensor
    d = local.__dict__
    d["_gt_placement"] = _interned(placement)
    d["_gt_sbp"] = _interned(tuple(nd_sbp))
    d["_gt_shape"] = tuple(int(n) for n in gshape)
    return local


# One object per distinct placement and sbp tuple: dispatch's fast path keys calls by their ids.
_interns: dict = {}


def _interned(value):
    return _interns.setdefault(value, value)


def _alias(t):
    """A new plain tensor object over ``t``'s data, without history."""
    return _Tensor.detach(t)


def _check_placement(value) -> Placement:
    if not isinstance(value, Placement):
        raise TypeError(f"placement must be a oneflow.placement, not {type(value).__name__}")
    return value


def _coord_or_standin(placement) -> tuple:
    """This rank's position in ``placement``; ranks outside it act as its first rank (they hold
    stand-ins, see :func:`oneflow.distributed.boxing.standin_shape`)."""
    coord = placement.coord(_rank())
    return (0,) * placement.ndim if coord is None else coord


def _empty_local(dtype, device):
    return oneflow.empty(0, dtype=dtype, device=device)


def _slice_full(full, placement, nd):
    """This rank's part of a tensor every rank holds whole (a copy; P: the first rank keeps)."""
    coord = _coord_or_standin(placement)
    box = _layout.local_box(tuple(full.shape), nd, placement.hierarchy, coord)
    out = full
    for d, (start, length) in enumerate(box):
        if length != full.shape[d]:
            out = out.narrow(d, start, length)
    if not _layout.first_on_partial_axes(nd, coord):
        return oneflow.zeros_like(out)
    return out.clone() if out is full else out.contiguous().clone()


def make_global(make, placement, sbp_value, requires_grad: bool, device=None, shape=None) -> GlobalTensor:
    """A global tensor whose global value is what ``make(shape, device)`` makes on one process.

    With ``shape`` (for fills), ``make`` is called with this rank's local shape; otherwise every
    rank makes the whole tensor (``make(None, device)``), so random tensors equal the
    same-seeded local ones whatever the sbp, and keeps its part.
    """
    if placement is None or sbp_value is None:
        raise ValueError("a global tensor needs both placement= and sbp=")
    placement = _check_placement(placement)
    if device is not None and oneflow.device(device).type != placement.type:
        raise ValueError(f"device={device!r} does not match the placement's type {placement.type!r}")
    env.init()
    _coll.register_placement(placement)
    dev = placement.device()
    if shape is not None:
        shape = tuple(shape)
        nd = normalize(sbp_value, placement.ndim, len(shape))
        coord = _coord_or_standin(placement)
        local = make(_layout.local_shape(shape, nd, placement.hierarchy, coord), dev)
        if not _layout.first_on_partial_axes(nd, coord):
            local = oneflow.zeros_like(local)
        gshape = shape
    else:
        with oneflow.no_grad():
            full = make(None, dev)
        nd = normalize(sbp_value, placement.ndim, full.ndim)
        gshape = tuple(full.shape)
        local = _slice_full(full, placement, nd)
    out = wrap(_alias(local), placement, nd, gshape)
    if requires_grad:
        out.requires_grad_(True)
    return out


# ---- the grad hook of leaves ---------------------------------------------------------------------


def _leaf_grad_sbp(nd) -> tuple:
    """The sbp of a leaf's ``.grad`` once its hook ran: broadcast for broadcast and partial-sum
    axes, the split for split axes."""
    return tuple(s if s.is_split() else B for s in nd)


def _ensure_grad_hook(t) -> None:
    if not (t.is_leaf and _base_requires_grad.__get__(t)):
        return
    d = t.__dict__
    if d.get("_gt_hooked"):
        return
    d["_gt_hooked"] = True
    placement, nd, gshape = d["_gt_placement"], d["_gt_sbp"], d["_gt_shape"]
    if not any(s.is_broadcast() and n > 1 for s, n in zip(nd, placement.hierarchy)):
        return
    src = tuple(dual(s) for s in nd)
    dst = _leaf_grad_sbp(nd)

    def reduce_grad(g):
        if g.requires_grad and oneflow.is_grad_enabled():  # create_graph: the sum keeps its history
            out = boxing.box_local(g, placement, gshape, src, dst)
            return g if out is None else out
        return boxing.box_plain(g, placement, gshape, src, dst)

    _Tensor._register_hook(t, reduce_grad)


# ---- local <-> global -------------------------------------------------------------------------


class _LocalToGlobal(oneflow.autograd.Function):
    @staticmethod
    def forward(ctx, x, placement, gshape, nd, grad_nd):
        ctx.meta = (placement, gshape, nd, grad_nd)
        return _alias(x)

    @staticmethod
    def backward(ctx, g):
        placement, gshape, nd, grad_nd = ctx.meta
        g = boxing.box_plain(g, placement, gshape, tuple(dual(s) for s in nd), grad_nd)
        return g, None, None, None, None


class _GlobalToLocal(oneflow.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return _alias(x)

    @staticmethod
    def backward(ctx, g):
        return g


def _infer_global_shape(local, placement, nd, check_meta: bool) -> tuple:
    """The global shape from every rank's local shape (checked alike), or assuming even splits.

    With ``check_meta``, every rank of the job gathers every rank's local meta first and then
    checks it, so that bad input (a split axis out of range, disagreeing local tensors) raises
    the same error on every rank, members of the placement or not, and none is left waiting in
    a collective that the others skipped.
    """
    me = _rank()
    coord = placement.coord(me)
    ndim = local.ndim if coord is not None else None
    if not check_meta:
        nd = normalize(nd, placement.ndim, ndim, "to_global(): sbp")
        shape = list(local.shape)
        for k, s in enumerate(nd):
            if s.is_split():
                shape[s.axis] *= placement.hierarchy[k]
        return tuple(shape)
    # Every rank of the job takes part, so that ranks outside the placement learn the shape too.
    world = tuple(range(env.get_world_size()))
    limit = 16
    row = [1 if coord is not None else 0, -1 if ndim is None else ndim, _dtype_code(local.dtype)]
    dims = list(local.shape)[:limit] if coord is not None else []
    row += dims + [0] * (limit - len(dims))
    _coll.register_placement(placement)
    rows = _coll.all_gather_object_ints(row, world)
    members = {r: rows[r] for r in placement.flat_ranks}
    too_many = [r for r, got in members.items() if got[1] > limit]
    if too_many:
        raise ValueError(f"to_global(): tensors of more than {limit} dimensions are not supported (rank "
                         f"{too_many[0]} has {members[too_many[0]][1]})")
    first = members[placement.flat_ranks[0]]
    ndim0, dtype0 = first[1], first[2]
    for r, got in members.items():
        if got[1] != ndim0 or got[2] != dtype0:
            raise ValueError(
                f"to_global(): the local tensors disagree: rank {placement.flat_ranks[0]} has {ndim0} dims "
                f"and dtype code {dtype0}, rank {r} has {got[1]} dims and dtype code {got[2]}"
            )
    locals_ = {r: tuple(got[3:3 + ndim0]) for r, got in members.items()}
    nd = normalize(nd, placement.ndim, ndim0, "to_global(): sbp")
    shape = list(locals_[placement.flat_ranks[0]])
    for d in range(ndim0):
        axes = [k for k, s in enumerate(nd) if s.is_split() and s.axis == d]
        if not axes:
            continue
        # Sum the pieces along the splitting axes, the other coordinates at 0.
        total = 0
        for c in placement.coords():
            if all(c[k] == 0 for k in range(placement.ndim) if k not in axes):
                total += locals_[placement.rank_at(c)][d]
        shape[d] = total
    for r, got in locals_.items():
        want = _layout.local_shape(shape, nd, placement.hierarchy, placement.coord(r))
        if tuple(got) != tuple(want):
            raise ValueError(
                f"to_global(): rank {r} holds a local tensor of shape {list(got)}, but a global tensor of "
                f"shape {shape} with sbp {nd} on {placement} puts {list(want)} there (split pieces must "
                "have tensor_split sizes, in rank order; broadcast and partial-sum parts the same shape)"
            )
    return tuple(shape)


def _dtype_code(dtype) -> int:
    return list(_C.dtypes).index(dtype) if dtype in list(_C.dtypes) else -1


def to_global(tensor, placement=None, sbp_value=None, *, grad_sbp=None, check_meta: bool = True,
              copy: bool = False):
    """``Tensor.to_global``: local -> global, or a global tensor to another sbp/placement."""
    if isinstance(tensor, GlobalTensor):
        return tensor.to_global(placement, sbp_value, grad_sbp=grad_sbp, check_meta=check_meta, copy=copy)
    if placement is None:
        raise ValueError("to_global(): a local tensor needs a placement")
    if sbp_value is None:
        raise ValueError("to_global(): a local tensor needs an sbp")
    placement = _check_placement(placement)
    env.init()
    coord = placement.coord(_rank())
    # The split axes are checked once every rank knows the tensor's dimensions (see
    # _infer_global_shape): checking them here would stop only the placement's ranks.
    nd = normalize(sbp_value, placement.ndim, None)
    gshape = _infer_global_shape(tensor, placement, nd, check_meta)
    nd = normalize(nd, placement.ndim, len(gshape))
    if grad_sbp is None:
        grad_nd = _leaf_grad_sbp(nd)
    else:
        grad_nd = normalize(grad_sbp, placement.ndim, len(gshape), "grad_sbp")
    if coord is None:
        standin = oneflow.zeros(boxing.standin_shape(placement, gshape, nd), dtype=tensor.dtype,
                                device=placement.device())
        return wrap(standin.requires_grad_(tensor.requires_grad), placement, nd, gshape)
    local = tensor
    if local.device != placement.device():
        local = local.to(placement.device())
    if copy:
        local = local.clone()
    if local.requires_grad and oneflow.is_grad_enabled():
        out = _LocalToGlobal.apply(local, placement, gshape, nd, grad_nd)
    else:
        out = _alias(local)
    return wrap(out, placement, nd, gshape)


def _local_with_history(t):
    """A new plain tensor object over ``t``'s local data, connected to ``t`` in autograd."""
    if t.requires_grad and oneflow.is_grad_enabled():
        return _GlobalToLocal.apply(t)
    return _alias(t)


def _global_to_global(t, placement, sbp_value, grad_sbp, copy):
    src_placement = t._gt_placement
    placement = src_placement if placement is None else _check_placement(placement)
    gshape = t._gt_shape
    src_nd = t._gt_sbp
    if sbp_value is None and placement.ndim != src_placement.ndim:
        raise ValueError(f"to_global(): give the sbp for {placement}: it has {placement.ndim} dimensions, the "
                         f"tensor's placement {src_placement} has {src_placement.ndim}")
    nd = src_nd if sbp_value is None else normalize(sbp_value, placement.ndim, len(gshape))
    if grad_sbp is not None:
        # Accepted and checked; the backward of a conversion is its exact dual whatever it says.
        normalize(grad_sbp, placement.ndim, len(gshape), "grad_sbp")
    if placement == src_placement:
        if nd == src_nd:
            return wrap(_local_with_history(t).clone(), placement, nd, gshape) if copy else t
        out = boxing.box_local(t, placement, gshape, src_nd, nd)
        if out is None:  # axes of one rank: nothing moves
            out = _local_with_history(t)
        return wrap(out, placement, nd, gshape)
    # A placement change: broadcast on the source, send to the target ranks lacking the data,
    # then slice there.
    _coll.register_placement(src_placement)
    _coll.register_placement(placement)
    full = boxing.box_local(t, src_placement, gshape, src_nd, tuple(B for _ in src_nd))
    if full is None:
        full = _local_with_history(t)
    moved = boxing.transfer(full, src_placement, placement, gshape)
    mid = wrap(moved, placement, tuple(B for _ in nd), gshape)
    return _global_to_global(mid, placement, nd, None, False)


# ---- autograd entry points ---------------------------------------------------------------------


def _computed_grad_sbp(t) -> tuple:
    """The sbp of the gradient autograd computes for global tensor ``t`` (its ``.grad``, or what
    ``oneflow.autograd.grad`` returns for it): a leaf whose grad hook ran (or that has no
    broadcast axis) gets :func:`_leaf_grad_sbp`, anything else the dual of its sbp."""
    d = t.__dict__
    nd = d["_gt_sbp"]
    if t.is_leaf and (d.get("_gt_hooked") or not any(s.is_broadcast() for s in nd)):
        return _leaf_grad_sbp(nd)
    return tuple(dual(s) for s in nd)


def _seed(fn: str, root, gradient):
    """This rank's local seed for the gradient of global ``root``: ``gradient`` boxed to the
    dual of the root's sbp, or, for a scalar root without one, a one counted once (seeded on the
    first rank of broadcast axes, on every rank of partial-sum ones)."""
    placement, nd = root._gt_placement, root._gt_sbp
    if gradient is None:
        if root.numel() != 1:
            raise RuntimeError(f"{fn}: a gradient must be given for a non-scalar output (a global tensor of "
                               f"shape {list(root._gt_shape)}); it is implied only for scalar outputs")
        member = placement.coord(_rank()) is not None
        value = 1 if member and _layout.first_on_broadcast_axes(nd, _coord_or_standin(placement)) else 0
        return oneflow.full(_Tensor.size(root), value, dtype=root.dtype, device=root.device)
    if not isinstance(gradient, GlobalTensor):
        raise TypeError(f"{fn}: the gradient of a global tensor must be a global tensor, got a local one "
                        f"of shape {list(gradient.shape)}")
    if gradient.placement != placement:
        raise RuntimeError(f"{fn}: the gradient's placement {gradient.placement} differs from the tensor's "
                           f"{placement}")
    if tuple(gradient.shape) != tuple(root._gt_shape):
        raise RuntimeError(f"{fn}: the gradient has shape {list(gradient.shape)} but the tensor has shape "
                           f"{list(root._gt_shape)}")
    return boxing.box_plain(_alias(gradient), placement, root._gt_shape, gradient.sbp, tuple(dual(s) for s in nd))


def global_seeds(fn: str, roots, grads) -> list:
    """The seeds the core's ``oneflow.autograd.backward``/``grad`` run with when global tensors
    are among the roots (``fn`` names the caller in errors): for a global root, its gradient in
    the local-autograd convention (see :func:`_seed`); for a local one, its gradient as given."""
    roots = list(roots)
    grads = list(grads) if grads else [None] * len(roots)
    if len(grads) != len(roots):
        raise RuntimeError(f"{fn}: got {len(roots)} tensors and {len(grads)} gradients")
    seeds = []
    for root, g in zip(roots, grads):
        if isinstance(root, GlobalTensor):
            seeds.append(_seed(fn, root, g))
        elif isinstance(g, GlobalTensor):
            raise TypeError(f"{fn}: the gradient of a local tensor must be a local tensor, got a global one")
        else:
            seeds.append(g)
    return seeds


def global_grads(inputs, grads, create_graph: bool) -> tuple:
    """What ``oneflow.autograd.grad`` returns for ``inputs`` given the core's local results
    ``grads``: for a global input, a global tensor with the sbp its ``.grad`` would have (see
    :func:`_computed_grad_sbp`); for a local input, the local gradient."""
    out = []
    for t, g in zip(inputs, grads):
        if g is None or not isinstance(t, GlobalTensor):
            out.append(g)
            continue
        # A new object (the result may be another tensor's object, e.g. a seed), keeping its
        # history when create_graph made one.
        g = _GlobalToLocal.apply(g) if create_graph and g.requires_grad else _alias(g)
        out.append(wrap(g, t._gt_placement, _computed_grad_sbp(t), t._gt_shape))
    return tuple(out)


# ---- the class ----------------------------------------------------------------------------------


def _global_repr(t) -> str:
    from oneflow import _tensor_str

    with oneflow.no_grad():
        full = t.to_global(sbp=tuple(B for _ in t._gt_sbp))
    suffixes = [f"placement={t._gt_placement!r}", f"sbp={t._gt_sbp!r}", f"dtype={t.dtype!r}"]
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    if t._gt_placement.coord(_rank()) is None:
        return f"tensor(<not on this rank>, shape={t._gt_shape}, " + ", ".join(suffixes) + ")"
    local = _Tensor.detach(full)
    if local.dtype == oneflow.bfloat16:
        local = local.float()
    array = local.numpy() if local.device.type == "cpu" else local.cpu().numpy()
    return _tensor_str.format_tensor(array, t.dtype._name, shape=t._gt_shape, suffixes=suffixes)


class GlobalTensor(oneflow.Tensor):
    """A tensor spread over the ranks of a :class:`oneflow.placement` as its ``sbp`` says.

    Made by ``Tensor.to_global``, by creation functions given ``placement=`` and ``sbp=``, and
    by ops on global tensors. Its local part is ``to_local()``.
    """

    __slots__ = ()

    # ---- meta ----
    @property
    def is_global(self) -> bool:
        """True."""
        return True

    @property
    def is_local(self) -> bool:
        """False."""
        return False

    @property
    def placement(self) -> Placement:
        """The placement (device type and ranks)."""
        return self.__dict__["_gt_placement"]

    @property
    def sbp(self) -> tuple:
        """One ``oneflow.sbp.sbp`` per placement axis."""
        return self.__dict__["_gt_sbp"]

    @property
    def shape(self):
        """The global shape."""
        return oneflow.Size(self.__dict__["_gt_shape"])

    def size(self, dim=None):
        """The global shape, or the global size of dimension ``dim``."""
        shape = self.__dict__["_gt_shape"]
        if dim is None:
            return oneflow.Size(shape)
        if not shape:
            raise IndexError(f"size(): dimension specified as {dim} but tensor has no dimensions")
        if not -len(shape) <= dim < len(shape):
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-len(shape)}, {len(shape) - 1}], "
                f"but got {dim})"
            )
        return shape[dim]

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self.__dict__["_gt_shape"])

    def dim(self) -> int:
        """The number of dimensions."""
        return len(self.__dict__["_gt_shape"])

    def numel(self) -> int:
        """The number of elements of the global tensor."""
        return math.prod(self.__dict__["_gt_shape"])

    nelement = numel

    def __len__(self) -> int:
        shape = self.__dict__["_gt_shape"]
        if not shape:
            raise TypeError("len() of a 0-d tensor")
        return shape[0]

    # ---- conversions ----
    def to_global(self, placement=None, sbp=None, *, grad_sbp=None, check_meta: bool = False, copy: bool = False):
        """This tensor converted to ``sbp`` (and/or moved to ``placement``); the gradient flows back
        through the dual conversion."""
        return _global_to_global(self, placement, sbp, grad_sbp, copy)

    def global_to_global(self, placement=None, sbp=None, *, grad_sbp=None, check_meta: bool = False,
                         copy: bool = False):
        """``to_global`` between global tensors."""
        return _global_to_global(self, placement, sbp, grad_sbp, copy)

    def local_to_global(self, *args, **kwargs):
        """Raises: this tensor is already global."""
        raise RuntimeError("local_to_global(): the tensor is already global; use to_global() to change it")

    def to_local(self, *, copy: bool = False):
        """This rank's local part (an empty tensor on ranks outside the placement). Gradients
        flowing into it reach this tensor."""
        if self.placement.coord(_rank()) is None:
            return _empty_local(self.dtype, self.device)
        out = _local_with_history(self)
        return out.clone() if copy else out

    def numpy(self):
        """The global value as a NumPy array on every rank of the placement (a collective); as
        OneFlow's, also of a tensor that requires grad."""
        full = self.detach().to_global(sbp=tuple(B for _ in self.sbp))
        if self.placement.coord(_rank()) is None:
            raise RuntimeError(f"numpy(): this rank ({_rank()}) is not in the tensor's placement {self.placement}")
        local = _Tensor.detach(full)
        return local.numpy() if local.device.type == "cpu" else local.cpu().numpy()

    def item(self):
        """The value of a one-element global tensor as a Python number (a collective)."""
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        full = self.detach().to_global(sbp=tuple(B for _ in self.sbp))
        return _Tensor.item(_Tensor.detach(full))

    def tolist(self):
        """The global value as nested Python lists (a collective)."""
        full = self.detach()
        if full.dtype == oneflow.bfloat16:
            full = full.float()
        return full.numpy().tolist()

    def __array__(self, dtype=None, copy=None):
        a = self.detach().numpy()
        return a.astype(dtype) if dtype is not None else a

    def __repr__(self) -> str:
        return _global_repr(self)

    __str__ = __repr__

    def __reduce__(self):
        raise TypeError("a global tensor cannot be pickled; save tensor.to_local() or the broadcast value")

    def __deepcopy__(self, memo):
        out = self.detach().clone()
        out.requires_grad_(self.requires_grad)
        memo[id(self)] = out
        return out

    def detach(self):
        """A global tensor over the same data without history."""
        d = self.__dict__
        return wrap(_alias(self), d["_gt_placement"], d["_gt_sbp"], d["_gt_shape"])

    @property
    def data(self):
        """The values without autograd history (a global tensor sharing memory)."""
        d = self.__dict__
        return wrap(_base_data.__get__(self), d["_gt_placement"], d["_gt_sbp"], d["_gt_shape"])

    @data.setter
    def data(self, value) -> None:
        if not isinstance(value, GlobalTensor):
            raise TypeError("the data of a global tensor must be set to a global tensor")
        value = value.to_global(self.placement, self.sbp) if value.shape == self.shape else value
        d = self.__dict__
        d["_gt_sbp"], d["_gt_shape"] = value.sbp, tuple(value.shape)
        d["_gt_placement"] = value.placement
        _base_data.__set__(self, _alias(value))

    def set_data(self, data) -> None:
        """Same as ``tensor.data = data``."""
        self.data = data

    def to(self, *args, **kwargs):
        """dtype conversions (the device is the placement's)."""
        from oneflow._tensor import _parse_to

        device, dtype, copy = _parse_to(args, dict(kwargs))
        if device is not None and device.type != self.placement.type:
            raise RuntimeError(
                f"to(): a global tensor's device comes from its placement; use to_global(placement=...) to move "
                f"it to {device.type}"
            )
        if dtype is not None and dtype != self.dtype or copy:
            return self._to_dtype(dtype or self.dtype, copy=True)
        return self

    # ---- autograd ----
    @property
    def requires_grad(self) -> bool:
        """Whether gradients are recorded for this tensor."""
        return _base_requires_grad.__get__(self)

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        _base_requires_grad.__set__(self, value)
        if value:
            _ensure_grad_hook(self)

    def requires_grad_(self, requires_grad: bool = True):
        """Sets requires_grad in place and returns self."""
        _Tensor.requires_grad_(self, requires_grad)
        if requires_grad:
            _ensure_grad_hook(self)
        return self

    @property
    def grad(self):
        """The gradient as a global tensor: broadcast where this leaf is broadcast or partial-sum,
        split where it is split (a non-leaf's retained gradient has the dual sbp)."""
        g = _base_grad.__get__(self)
        if g is None:
            return None
        d = self.__dict__
        grad_nd = _computed_grad_sbp(self)
        if isinstance(g, GlobalTensor):
            g.__dict__["_gt_sbp"] = _interned(grad_nd)
            return g
        return wrap(g, d["_gt_placement"], grad_nd, d["_gt_shape"])

    @grad.setter
    def grad(self, value) -> None:
        if value is None:
            _base_grad.__set__(self, None)
            return
        if not isinstance(value, GlobalTensor):
            raise TypeError("the grad of a global tensor must be a global tensor (or None)")
        nd = self.sbp
        target = _leaf_grad_sbp(nd) if self.is_leaf else tuple(dual(s) for s in nd)
        if self.is_leaf:
            self.__dict__["_gt_hooked"] = self.__dict__.get("_gt_hooked") or not any(s.is_broadcast() for s in nd)
        value = value.to_global(self.placement, target)
        _base_grad.__set__(self, value)

    def backward(self, gradient=None, retain_graph=None, create_graph: bool = False, inputs=None) -> None:
        """Backward from a global tensor. A scalar's implied gradient is one (seeded once for a
        broadcast scalar, on every rank for a partial sum)."""
        if inputs is not None:
            raise NotImplementedError("backward(inputs=...) is not supported for global tensors")
        oneflow.autograd.backward(self, gradient, retain_graph, create_graph)

    def register_hook(self, hook):
        """Registers ``hook(grad)``, called with the gradient as a global tensor (see ``grad``)."""
        d = self.__dict__
        placement, nd, gshape = d["_gt_placement"], d["_gt_sbp"], d["_gt_shape"]
        grad_nd = tuple(dual(s) for s in nd)

        def call(g):
            out = hook(wrap(_alias(g), placement, grad_nd, gshape))
            if out is None:
                return None
            if not isinstance(out, GlobalTensor):
                raise TypeError("a hook of a global tensor must return a global tensor or None")
            return _alias(out.to_global(placement, grad_nd))

        from oneflow._tensor import _register_hook

        return _register_hook(self, call)

    # ---- new tensors like this one ----
    # OneFlow's Tensor.new_*: by default this tensor's dtype, placement and sbp; a split axis the
    # new shape lacks becomes broadcast.
    def _new_meta(self, ndim: int, placement, sbp) -> tuple:
        if placement is None:
            placement = self.placement
        if sbp is None:
            sbp = tuple(s if not s.is_split() or s.axis < ndim else B for s in self.sbp)
        return placement, sbp

    def _new(self, make, size, dtype, requires_grad, placement, sbp):
        shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)
        placement, sbp = self._new_meta(len(shape), placement, sbp)
        return make_global(lambda s, dev: make(s, dtype or self.dtype, dev), placement, sbp, requires_grad,
                           shape=shape)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad: bool = False, placement=None, sbp=None):
        """Zeros on this tensor's placement with its sbp (unless given)."""
        return self._new(lambda s, dt, dev: oneflow.zeros(s, dtype=dt, device=dev), size, dtype, requires_grad,
                         placement, sbp)

    def new_ones(self, *size, dtype=None, device=None, requires_grad: bool = False, placement=None, sbp=None):
        """Ones on this tensor's placement with its sbp (unless given)."""
        return self._new(lambda s, dt, dev: oneflow.ones(s, dtype=dt, device=dev), size, dtype, requires_grad,
                         placement, sbp)

    def new_empty(self, *size, dtype=None, device=None, requires_grad: bool = False, placement=None, sbp=None):
        """An uninitialized tensor on this tensor's placement with its sbp (unless given)."""
        return self._new(lambda s, dt, dev: oneflow.empty(s, dtype=dt, device=dev), size, dtype, requires_grad,
                         placement, sbp)

    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad: bool = False, placement=None,
                 sbp=None):
        """A tensor filled with ``fill_value`` on this tensor's placement with its sbp (unless given)."""
        size = (size,) if isinstance(size, int) else tuple(size)
        return self._new(lambda s, dt, dev: oneflow.full(s, fill_value, dtype=dt, device=dev), (size,), dtype,
                         requires_grad, placement, sbp)

    def new_tensor(self, data, dtype=None, device=None, requires_grad: bool = False, placement=None, sbp=None):
        """``data`` as a broadcast tensor on this tensor's placement (unless given)."""
        return oneflow.tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad,
                              placement=self.placement if placement is None else placement,
                              sbp=tuple(B for _ in self.sbp) if sbp is None else sbp)


class GlobalParameter(GlobalTensor, oneflow.nn.Parameter):
    """An ``nn.Parameter`` that is a global tensor (``nn.Parameter(global_tensor)``)."""

    def __init__(self, data=None, requires_grad: bool = True) -> None:
        if not isinstance(data, GlobalTensor):
            raise TypeError("GlobalParameter(): data must be a global tensor")
        d = data.__dict__
        oneflow.nn.Parameter.__init__(self, _alias(data), False)
        self.__dict__.update(_gt_placement=d["_gt_placement"], _gt_sbp=d["_gt_sbp"], _gt_shape=d["_gt_shape"])
        self.requires_grad_(requires_grad)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + _global_repr(self)

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        out = GlobalParameter(self.detach().clone(), self.requires_grad)
        memo[id(self)] = out
        return out

    def __reduce_ex__(self, protocol):
        raise TypeError("a global parameter cannot be pickled; save its to_local() or broadcast value")


# ---- Module.to_global (the core's Module.to_global calls this) ----------------------------------


def module_to_global(module, placement=None, sbp=None):
    """``Module.to_global(placement, sbp)``: every parameter and buffer converted to global
    tensors in place of the local ones; parameters become new :class:`GlobalParameter`
    objects, so make the optimizer afterwards. ``sbp`` may also be a function
    ``sbp(name, tensor) -> sbp`` choosing per tensor."""

    def pick(name, t):
        return sbp(name, t) if callable(sbp) else sbp

    for prefix, mod in module.named_modules():
        for name, param in list(mod._parameters.items()):
            if param is None:
                continue
            full = f"{prefix}.{name}" if prefix else name
            with oneflow.no_grad():
                g = to_global(param.detach(), placement, pick(full, param))
            new = GlobalParameter(g, param.requires_grad)
            mod._parameters[name] = new
        for name, buf in list(mod._buffers.items()):
            if buf is None:
                continue
            full = f"{prefix}.{name}" if prefix else name
            with oneflow.no_grad():
                mod._buffers[name] = to_global(buf, placement, pick(full, buf))
    return module


def _install() -> None:
    import sys

    from oneflow import _plugin
    from oneflow.distributed import dispatch

    dispatch._set_types(GlobalTensor, GlobalParameter)
    _C._set_global_dispatch(GlobalTensor, dispatch.handle)
    # placement=/sbp= arguments, Tensor.to_global, Module.to_global, nn.Parameter(global tensor)
    # and oneflow.autograd reach this module through the core's hook.
    _plugin.register_hook("global_tensor", sys.modules[__name__])


_install()
