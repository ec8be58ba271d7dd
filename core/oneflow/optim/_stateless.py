"""``swap_in_optimizer_params_and_state``: run optimizer code (``step()``, hooks) against other
parameter tensors and an ``optimizer.state_dict()``-shaped state, restoring the live optimizer
afterwards (the same API as ``torch.optim.swap_in_optimizer_params_and_state``)."""

from __future__ import annotations

import contextlib
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import oneflow
from oneflow.optim.optimizer import Optimizer

__all__ = ["swap_in_optimizer_params_and_state"]

_NAME = "swap_in_optimizer_params_and_state"


def _check_state(state: Any) -> dict:
    if not isinstance(state, dict):
        raise RuntimeError(
            f"{_NAME} requires swapin_optim_state['state'] to be a dict mapping packed parameter ids to "
            f"per-param state dicts, got {type(state).__name__}."
        )
    if any(isinstance(k, oneflow.Tensor) for k in state):
        raise RuntimeError(f"{_NAME} requires optimizer.state_dict()-style state keyed by packed parameter ids.")
    if any(isinstance(k, int) and not isinstance(v, dict) for k, v in state.items()):
        raise RuntimeError(f"{_NAME} requires per-parameter optimizer state entries to be dictionaries.")
    return state


def _check_group(idx: int, live: dict, swapin: Any) -> list[int]:
    if not isinstance(swapin, dict):
        raise RuntimeError(f"{_NAME} requires each optimizer param group to be a dictionary.")
    ids = swapin.get("params")
    if not isinstance(ids, list) or not all(isinstance(i, int) for i in ids):
        raise RuntimeError(
            f"{_NAME} requires optimizer.state_dict()-style param_groups[*]['params'] entries keyed by packed "
            "parameter ids."
        )
    if len(live["params"]) != len(ids):
        raise RuntimeError(
            f"swapin_optim_state param group {idx} has a different number of params than the live optimizer "
            "param group."
        )
    swapin_only = [k for k in swapin if k not in live]
    live_only = [k for k in live if k not in swapin]
    if swapin_only or live_only:
        raise RuntimeError(
            f"{_NAME} requires optimizer.state_dict()-style param group keys to exactly match the live optimizer "
            f"group keys for group {idx}. Keys only in swap-in: {swapin_only}. Keys only in live: {live_only}."
        )
    return ids


@contextlib.contextmanager
def swap_in_optimizer_params_and_state(
    optimizer: Optimizer, swapin_parameters: dict[str, oneflow.Tensor], swapin_optim_state: dict[str, Any]
) -> Iterator[None]:
    r"""Context manager: inside it, ``optimizer`` works on ``swapin_parameters`` (in the order of
    its param groups) with the state and hyper-parameters of ``swapin_optim_state`` (shaped like
    ``optimizer.state_dict()``); on exit its own parameters, groups and state come back.

    Unlike ``load_state_dict``, the parameters are swapped too, so ``optimizer.step()`` updates
    the given tensors. In-place changes to the given state tensors are visible to the caller;
    new entries put into the state are dropped.

    Args:
        optimizer: the live optimizer; its state must be initialized (one step taken).
        swapin_parameters: name to tensor, in the optimizer's parameter order.
        swapin_optim_state: ``{"state": {id: {...}}, "param_groups": [...]}``.

    Example::

        >>> with swap_in_optimizer_params_and_state(opt, params, opt_state):
        ...     opt.step()
    """
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{_NAME}: optimizer must be an Optimizer, got {type(optimizer).__name__}")
    if not optimizer.state:
        raise RuntimeError(f"{_NAME} requires initialized optimizer state.")
    if not isinstance(swapin_optim_state, dict):
        raise RuntimeError(f"{_NAME} requires a DCP-style optimizer state_dict.")
    state = _check_state(swapin_optim_state.get("state"))
    groups = swapin_optim_state.get("param_groups")
    if not isinstance(groups, list):
        raise RuntimeError(
            f"{_NAME} requires swapin_optim_state['param_groups'] to be a list of param-group dicts, got "
            f"{type(groups).__name__}."
        )
    if len(groups) != len(optimizer.param_groups):
        raise RuntimeError("swapin_optim_state has a different number of parameter groups than the live optimizer.")
    flat = list(swapin_parameters.values())
    offset, seen, plan = 0, set(), []
    for idx, (live, swapin) in enumerate(zip(optimizer.param_groups, groups)):
        ids = _check_group(idx, live, swapin)
        seen.update(ids)
        if offset + len(ids) > len(flat):
            raise RuntimeError(
                f"{_NAME} requires the explicit parameter state to match optimizer.param_groups ordering."
            )
        plan.append((live, swapin, flat[offset : offset + len(ids)]))
        offset += len(ids)
    extra = [k for k in state if k not in seen]
    if extra:
        raise RuntimeError(
            f"{_NAME} requires swapin_optim_state['state'] to be keyed only by packed parameter ids from "
            f"param_groups[*]['params']; got extra keys {extra!r}."
        )
    original_state = optimizer.state
    snapshots = [dict(g) for g in optimizer.param_groups]
    try:
        swapped: defaultdict = defaultdict(dict)
        for live, swapin, params in plan:
            live["params"] = params
            for key, value in swapin.items():
                if key != "params":
                    live[key] = value
            for param, pid in zip(params, swapin["params"]):
                swapped[param] = dict(state.get(pid, {}))
        optimizer.state = swapped
        yield
    finally:
        for group, snapshot in zip(optimizer.param_groups, snapshots):
            group.clear()
            group.update(snapshot)
        optimizer.state = original_state
