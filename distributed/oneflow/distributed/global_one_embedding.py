"""Global ids for ``oneflow.one_embedding``: the rows are sharded over the processes.

Rank ``key mod world`` owns row ``key``: it alone stores the row and its optimizer state. A lookup
of global ids (a 1-D placement over every process, sbp ``split(0)`` or ``broadcast``) sends each
rank's distinct keys to all ranks; each owner creates the missing rows it owns from their tables'
initializers and answers with them, and the output is a global tensor with the ids' placement and
sbp (plus the embedding axis). At the optimizer step the row gradients go to their owners:
summed over ranks for split ids (each rank holds the gradient of its own part of the batch), and
the owner's own copy for broadcast ids (every rank holds the whole gradient).

The core's :mod:`oneflow.one_embedding` reaches this module through the ``global_one_embedding``
hook. Every rank must look up and step alike, as with any collective.
"""

from __future__ import annotations

import sys

import numpy as np

import oneflow
from oneflow import _plugin
from oneflow.distributed import _collectives as coll
from oneflow.distributed import env

__all__ = ["lookup", "route_grads"]


def _check_ids(ids) -> tuple:
    placement, sbp = ids.placement, ids.sbp
    world = env.get_world_size()
    if placement.ndim != 1 or list(placement.ranks) != list(range(world)):
        raise NotImplementedError(
            f"one_embedding: global ids must be on a 1-D placement of every process (ranks 0..{world - 1}), "
            f"got {placement}"
        )
    (s,) = sbp
    if s == oneflow.sbp.broadcast:
        return placement, sbp, "broadcast"
    if s == oneflow.sbp.split(0):
        return placement, sbp, "split"
    raise NotImplementedError(f"one_embedding: global ids must have sbp split(0) or broadcast, got {sbp}")


def _gather(obj) -> list:
    """Every rank's ``obj``, in rank order."""
    world = env.get_world_size()
    if world == 1:
        return [obj]
    env.init()
    out: list = [None] * world
    coll.all_gather_object(out, obj)
    return out


def lookup(emb, ids, table_ids=None):
    """The rows of global ``ids``: a global tensor of shape ``ids.shape + (embedding_dim,)``."""
    placement, sbp, mode = _check_ids(ids)
    if table_ids is not None and table_ids.is_global:
        table_ids = table_ids.to_global(placement=placement, sbp=sbp).to_local()
    local_ids = ids.to_local()
    keys = local_ids.numpy().astype(np.int64)
    tables = emb._table_ids(local_ids, table_ids)
    unique, first, inverse = np.unique(keys.reshape(-1), return_index=True, return_inverse=True)
    world, rank = env.get_world_size(), env.get_rank()
    requests = _gather((unique, tables.reshape(-1)[first]))
    answer = {}
    for their_keys, their_tables in requests:
        for k, t in zip(their_keys.tolist(), their_tables.tolist()):
            if k % world == rank and k not in answer:
                if k not in emb._rows:
                    emb._rows[k] = emb._new_row(int(t), k)
                answer[k] = emb._rows[k]
    answers = _gather(answer)
    values = (
        np.stack([answers[k % world][k] for k in unique.tolist()]) if len(unique) else np.zeros((0, emb.embedding_dim))
    )
    rows = oneflow.tensor(values, dtype=emb.dtype, requires_grad=oneflow.is_grad_enabled())
    emb._global_mode = mode
    if rows.requires_grad:
        emb._pending.append((unique, rows))
    local = rows[oneflow.tensor(inverse.reshape(-1), dtype=oneflow.int64)].reshape(*keys.shape, emb.embedding_dim)
    return local.to_global(placement=placement, sbp=sbp)


def route_grads(emb, grads: dict) -> dict:
    """This rank's row gradients -> the gradients of the rows this rank owns."""
    world, rank = env.get_world_size(), env.get_rank()
    if emb._global_mode == "broadcast":
        return {k: g for k, g in grads.items() if k % world == rank}
    owned: dict = {}
    for part in _gather(grads):
        for k, g in part.items():
            if k % world == rank:
                owned[k] = owned[k] + g if k in owned else g
    return owned


_plugin.register_hook("global_one_embedding", sys.modules[__name__])
