"""Passes over a compiled plan (its exported form, re-imported after the change).

``fold_batch_norm``: an evaluation-mode ``native_batch_norm`` whose input is a convolution's
output, read by nothing else, with every weight and statistic a constant of the graph, is folded
into the convolution: ``W' = W * s`` and ``b' = (b - mean) * s + beta`` per output channel, with
``s = gamma / sqrt(var + eps)``. The folded weights are constants of their own; each run first
checks the version counters of the tensors they came from (an eager ``load_state_dict`` or
optimizer step bumps them) and refolds those that changed, so the graph keeps following the
module's parameters.
"""

from __future__ import annotations

import oneflow
from oneflow import _C

__all__ = ["Fold", "fold_batch_norm"]


class Fold:
    """One folded convolution + batch norm: the sources, their versions, the folded tensors."""

    def __init__(self, weight, bias, gamma, beta, mean, var, eps: float) -> None:
        self.sources = [weight, bias, gamma, beta, mean, var]
        self.eps = eps
        self.versions = None
        self.folded_weight = oneflow.empty_like(weight)
        self.folded_bias = oneflow.empty(weight.shape[0], dtype=weight.dtype)
        self.refresh()

    def _current_versions(self) -> list:
        return [t._version if t is not None else -1 for t in self.sources]

    def refresh(self) -> None:
        """Recomputes the folded tensors when a source changed since the last time."""
        versions = self._current_versions()
        if versions == self.versions:
            return
        weight, bias, gamma, beta, mean, var = self.sources
        with oneflow.no_grad():
            scale = (var.double() + self.eps).rsqrt()
            if gamma is not None:
                scale = scale * gamma.double()
            shift = -mean.double() * scale
            if bias is not None:
                shift = shift + bias.double() * scale
            if beta is not None:
                shift = shift + beta.double()
            shape = [-1] + [1] * (weight.ndim - 1)
            self.folded_weight.copy_((weight.double() * scale.reshape(shape)).to(weight.dtype))
            self.folded_bias.copy_(shift.to(weight.dtype))
        self.versions = versions


def _uses(nodes, outputs) -> dict:
    count: dict = {}
    for _, _, ids, _ in nodes:
        for arg_ids in ids:
            for v in arg_ids:
                count[v] = count.get(v, 0) + 1
    for v in outputs:
        count[v] = count.get(v, 0) + 1
    return count


def fold_batch_norm(plan):
    """(new plan, [Fold]) with the foldable convolution + batch norm pairs folded; the plan
    itself when there is none."""
    nodes, num_values, inputs, outputs, constants = plan.export()
    const = dict(constants)
    uses = _uses(nodes, outputs)
    producer = {}
    for index, (_, _, _, outs) in enumerate(nodes):
        for v in outs:
            producer[v] = index
    remove, rename, folds = set(), {}, []
    new_constants = list(constants)
    nodes = [list(n) for n in nodes]
    for index, (op, args, ids, outs) in enumerate(nodes):
        if op != "native_batch_norm" or args[5] is not False:
            continue
        source = producer.get(ids[0][0]) if ids[0] else None
        if source is None or nodes[source][0] != "convolution" or uses.get(ids[0][0], 0) != 1:
            continue
        conv_args, conv_ids = nodes[source][1], nodes[source][2]
        if conv_args[6] is not False:  # transposed
            continue
        if any(uses.get(v, 0) for v in outs[1:]):
            continue  # the batch statistics are read
        stat_ids = [i[0] if i else None for i in ids[1:5]]
        if stat_ids[2] is None or stat_ids[3] is None:
            continue
        weight_id = conv_ids[1][0] if conv_ids[1] else None
        bias_id = conv_ids[2][0] if conv_ids[2] else None
        wanted = [weight_id, bias_id, *stat_ids]
        if weight_id is None or any(v is not None and v not in const for v in wanted):
            continue
        tensors = [const.get(v) if v is not None else None for v in wanted]
        fold = Fold(*tensors, eps=float(args[7]))
        w_id, b_id = num_values, num_values + 1
        num_values += 2
        new_constants += [(w_id, fold.folded_weight), (b_id, fold.folded_bias)]
        conv_ids[1], conv_ids[2] = [w_id], [b_id]
        conv_args[2] = None
        remove.add(index)
        rename[outs[0]] = nodes[source][3][0]
        folds.append(fold)
    if not folds:
        return plan, []
    kept = []
    for index, (op, args, ids, outs) in enumerate(nodes):
        if index in remove:
            continue
        kept.append((op, args, [[rename.get(v, v) for v in arg_ids] for arg_ids in ids], outs))
    outputs = [rename.get(v, v) for v in outputs]
    return _C._plan_import(kept, num_values, list(inputs), outputs, new_constants), folds
