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
from oneflow.optim.sgd import _fusable

_FUSED = {"_fused_sgd_", "_fused_adam_", "_fused_adamw_"}
# The ops a fused step records besides the fused kernels: the Adam family's step counters.
_STEP_OPS = _FUSED | {"add_"}


def expects_fused_step(optimizers) -> bool:
    """Whether every optimizer's next step takes its fused kernel (and nothing reads values)."""
    for opt, _ in optimizers:
        kind = type(opt)
        if kind not in (oneflow.optim.SGD, oneflow.optim.Adam, oneflow.optim.AdamW):
            return False
        for group in opt.param_groups:
            if group.get("clip_grad_max_norm") is not None:
                return False
            items = opt._grads(group)
            if not items:
                continue
            if kind is oneflow.optim.SGD:
                keys = ("momentum_buffer",) if group["momentum"] != 0 else ()
                if not _fusable(group, items, keys, op="_fused_sgd_"):
                    return False
                if any(keys and s.get("momentum_buffer") is None for _, _, s in items):
                    return False  # a first step: its buffers are made from the gradients
                continue
            decoupled = group.get("decoupled_weight_decay", False) or kind is oneflow.optim.AdamW
            keys = ("exp_avg", "exp_avg_sq") + (("max_exp_avg_sq",) if group["amsgrad"] else ())
            if not group.get("do_bias_correction", True):
                return False
            if not _fusable(group, items, keys, op="_fused_adamw_" if decoupled else "_fused_adam_"):
                return False
            if not all(s and isinstance(s.get("step"), oneflow.Tensor) for _, _, s in items):
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
        schema_args = [a.split(" ")[-1].split("=")[0] for a in _argument_names(op)]
        params = [tensors.get(i) for i in ids[0]]
        groups = {id(group_of.get(id(p))) for p in params}
        if None in params or len(groups) != 1 or id(None) in groups:
            return None
        slots.append((index, schema_args.index("lr"), group_of[id(params[0])]))
    return slots


def _argument_names(op: str) -> list:
    schema = next(s for s in _C._op_schemas() if s.startswith(op + "("))
    inner = schema[len(op) + 1 : schema.rindex(") ->")]
    return [a.strip() for a in inner.split(",") if a.strip() and a.strip() != "*"]


def current_node_count() -> int:
    return _C._trace_num_nodes()
