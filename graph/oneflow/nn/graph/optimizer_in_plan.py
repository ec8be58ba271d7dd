"""The optimizer step inside a training graph's plan.

The first call of a training graph traces forward and backward; the optimizer then steps eagerly
and creates its state. The second call traces again, now with the step: when every optimizer
will take its fused multi-tensor kernel (SGD, Adam, AdamW without gradient clipping), the step's
ops (the fused update and the step counters' increments) become nodes of the plan, which then
needs no Python per parameter. The learning rate is the one argument a scheduler changes between
calls: each fused node's ``lr`` is set from its param group before every run. Any other change
of a group's hyperparameters sends the graph back to stepping eagerly.
"""

from __future__ import annotations

import oneflow
from oneflow import _C

_FUSED = {"_fused_sgd_", "_fused_adam_", "_fused_adamw_"}
# The ops a fused step records besides the fused kernels: the Adam family's step counters.
_STEP_OPS = _FUSED | {"add_"}


def expects_fused_step(optimizers) -> bool:
    """Whether every optimizer's next step takes its fused kernel (the optimizer's own test) from
    state that already exists (a first step would create it inside the trace)."""
    for opt, _ in optimizers:
        if type(opt) not in (oneflow.optim.SGD, oneflow.optim.Adam, oneflow.optim.AdamW):
            return False
        for group in opt.param_groups:
            if group.get("clip_grad_max_norm") is not None:
                return False
            items = opt._grads(group)
            if not items:
                continue
            if not opt._takes_fused_step(group, items):
                return False
            if isinstance(opt, oneflow.optim.SGD):
                if group["momentum"] != 0 and any(s.get("momentum_buffer") is None for _, _, s in items):
                    return False
            elif not all(s for _, _, s in items):
                return False
    return True


def hyperparameters(optimizers) -> list:
    """Every group's hyperparameters except ``lr`` and ``params``: what the plan has baked in."""
    return [
        [{k: v for k, v in g.items() if k not in ("params", "lr")} for g in opt.param_groups] for opt, _ in optimizers
    ]


def lr_slots(plan, first_node: int, optimizers):
    """[(node, argument index, param group)] for the ``lr`` of each fused node recorded from
    ``first_node`` on; None when the step recorded other ops (it did not fuse)."""
    nodes, _, _, _, constants = plan.export()
    tensors = dict(constants)
    group_of = {}
    for opt, _ in optimizers:
        for group in opt.param_groups:
            for p in group["params"]:
                group_of[id(p)] = group
    slots = []
    for index in range(first_node, len(nodes)):
        op, args, ids, _ = nodes[index]
        if op not in _STEP_OPS:
            return None
        if op not in _FUSED:
            continue
        schema_args = [a[0] for a in _C._op_schema_info(op)[2]]
        params = [tensors.get(i) for i in ids[0]]
        groups = {id(group_of.get(id(p))) for p in params}
        if None in params or len(groups) != 1 or id(None) in groups:
            return None
        slots.append((index, schema_args.index("lr"), group_of[id(params[0])]))
    return slots


def current_node_count() -> int:
    return _C._trace_num_nodes()
