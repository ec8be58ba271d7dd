"""``nn.Graph.state_dict`` / ``load_state_dict`` in OneFlow's layout.

``{<module name>: that module's state_dict(), ...}``, and for a training graph:
``"System-Train-TrainStep"`` (an int64 tensor of shape [1]: the steps taken), the optimizers'
per-parameter state as ``"<module name>.<parameter name>-<state>"`` (``momentum`` for SGD's
buffer, ``m``/``v``/``max_v`` for the Adam family's moments, other states by their own names),
and, so that a resumed run continues bit for bit, each optimizer's hyperparameters
(``"System-Train-Optimizer-<i>"``) and scheduler state (``"System-Train-LrScheduler-<i>"``).
"""

from __future__ import annotations

from collections import OrderedDict

import oneflow

TRAIN_STEP = "System-Train-TrainStep"
_OPTIMIZER = "System-Train-Optimizer-{}"
_SCHEDULER = "System-Train-LrScheduler-{}"
_STATE_NAMES = {"momentum_buffer": "momentum", "exp_avg": "m", "exp_avg_sq": "v", "max_exp_avg_sq": "max_v"}
_STATE_KEYS = {v: k for k, v in _STATE_NAMES.items()}


def _parameter_names(graph) -> dict:
    names = {}
    for name, proxy in graph._modules.items():
        for pname, p in proxy.origin.named_parameters():
            names.setdefault(id(p), f"{name}.{pname}")
    return names


def state_dict(graph) -> dict:
    out: dict = OrderedDict()
    for name, proxy in graph._modules.items():
        out[name] = proxy.origin.state_dict()
    if not graph.training:
        return out
    out[TRAIN_STEP] = oneflow.tensor([graph._train_step], dtype=oneflow.int64)
    names = _parameter_names(graph)
    for i, (opt, sch) in enumerate(graph._optimizers):
        for group in opt.param_groups:
            for p in group["params"]:
                pname = names.get(id(p))
                for key, value in opt.state.get(p, {}).items():
                    if pname is None:
                        continue
                    suffix = _STATE_NAMES.get(key, key)
                    out[f"{pname}-{suffix}"] = value.detach().clone() if isinstance(value, oneflow.Tensor) else value
        out[_OPTIMIZER.format(i)] = [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups]
        if sch is not None:
            out[_SCHEDULER.format(i)] = sch.state_dict()
    return out


def load_state_dict(graph, state: dict, strict: bool = True) -> None:
    if not isinstance(state, dict):
        raise TypeError(f"nn.Graph.load_state_dict(): expected a dict, got {type(state).__name__}")
    for name, proxy in graph._modules.items():
        if name in state:
            proxy.origin.load_state_dict(state[name], strict=strict)
        elif strict:
            raise KeyError(f"nn.Graph.load_state_dict(): no state for module {name!r}")
    if TRAIN_STEP not in state:
        return
    if not graph.training:
        raise ValueError("nn.Graph.load_state_dict(): training state given to a graph without an optimizer")
    graph._train_step = int(state[TRAIN_STEP].reshape(-1)[0].item())
    names = _parameter_names(graph)
    for i, (opt, sch) in enumerate(graph._optimizers):
        groups = state.get(_OPTIMIZER.format(i))
        if groups is not None:
            if len(groups) != len(opt.param_groups):
                raise ValueError(
                    f"nn.Graph.load_state_dict(): optimizer {i} has {len(opt.param_groups)} param groups, "
                    f"the state {len(groups)}"
                )
            for group, saved in zip(opt.param_groups, groups):
                group.update(saved)
        for group in opt.param_groups:
            for p in group["params"]:
                pname = names.get(id(p))
                if pname is None:
                    continue
                prefix = pname + "-"
                entries = {
                    k[len(prefix) :]: v
                    for k, v in state.items()
                    if k.startswith(prefix) and "." not in k[len(prefix) :]
                }
                if entries:
                    opt.state[p] = {
                        _STATE_KEYS.get(k, k): v.detach().clone() if isinstance(v, oneflow.Tensor) else v
                        for k, v in entries.items()
                    }
        if sch is not None and _SCHEDULER.format(i) in state:
            sch.load_state_dict(state[_SCHEDULER.format(i)])
