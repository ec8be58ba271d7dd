"""``oneflow.nn.Graph``: ``nn.Module`` code traced once per input signature and replayed from C++.

The first call with a new signature (the tensors' shapes, dtypes and devices, and the other
arguments' values) runs ``build`` while the C++ dispatcher records every op call
(``oneflow._C._trace_*``, core/framework/trace.h); later calls with that signature run the
recorded plan in C++, with no Python per op. Parameters, buffers and eager tensors that ``build``
reads are the graph's constants, by reference: the graph and eager code share them.

Training graphs: ``add_optimizer`` and ``loss.backward()`` inside ``build``. The trace records the
backward ops too; the plan returns the parameters' gradients with the outputs, and the optimizer
(gradient clipping from the param groups' ``clip_grad_max_norm``, then ``step``, then the
scheduler) runs after it on every call, with its fused multi-tensor kernels. A ``build`` that
reads a tensor's values (``.item()``, ``.numpy()``, ``if x.sum() > 0``) fails with the module path
and source line, since the graph would keep that call's values forever.
"""

from __future__ import annotations

import itertools
import traceback
from collections import OrderedDict

import oneflow
from oneflow import _C
from oneflow.nn.graph import optimizer_in_plan as in_plan
from oneflow.nn.graph import passes
from oneflow.nn.graph.proxy import GraphModule

__all__ = ["Graph", "GraphConfig"]

_counters: dict = {}


class GraphConfig:
    """Graph-wide options (OneFlow's ``graph.config``): stored and read by the passes that use
    them; this slice applies none of them yet."""

    def __init__(self) -> None:
        self.amp = (False, None)
        self.gradient_accumulation_steps = 1

    def enable_amp(self, mode: bool = True, *, dtype=None) -> None:
        self.amp = (bool(mode), dtype)

    def set_gradient_accumulation_steps(self, value: int) -> None:
        self.gradient_accumulation_steps = int(value)


def _flatten(value, tensors: list, seen: dict):
    """``value``'s structure with each tensor replaced by its index in ``tensors`` (a tensor
    passed twice keeps one index), and a hashable key of everything else."""
    if isinstance(value, oneflow.Tensor):
        index = seen.get(id(value))
        if index is None:
            index = seen[id(value)] = len(tensors)
            tensors.append(value)
        return ("T", index)
    if isinstance(value, (list, tuple)):
        kind = "L" if isinstance(value, list) else "U"
        return (kind, tuple(_flatten(v, tensors, seen) for v in value))
    if isinstance(value, dict):
        return ("D", tuple((k, _flatten(v, tensors, seen)) for k, v in value.items()))
    try:
        hash(value)
    except TypeError:
        raise TypeError(
            f"nn.Graph: an argument of type {type(value).__name__} is neither a tensor, a list, a tuple, a "
            "dict nor a hashable constant"
        ) from None
    return ("C", value)


def _unflatten(spec, tensors: list):
    kind, body = spec
    if kind == "T":
        return tensors[body]
    if kind == "L":
        return [_unflatten(s, tensors) for s in body]
    if kind == "U":
        return tuple(_unflatten(s, tensors) for s in body)
    if kind == "D":
        return {k: _unflatten(s, tensors) for k, s in body}
    return body


def _signature(spec, tensors: list) -> tuple:
    meta = tuple((tuple(t.shape), t.dtype, str(t.device), t.requires_grad) for t in tensors)
    return (spec, meta)


def _user_frame(tb) -> str:
    """The innermost frame outside this package and oneflow's own modules: the user's line."""
    frames = traceback.extract_tb(tb)
    for frame in reversed(frames):
        path = frame.filename.replace("\\", "/")
        if "/oneflow/" not in path or path.endswith("_test.py"):
            return f'File "{frame.filename}", line {frame.lineno}, in {frame.name}: {frame.line}'
    frame = frames[-1]
    return f'File "{frame.filename}", line {frame.lineno}, in {frame.name}'


class Graph:
    """A static graph of ``nn.Module`` code (OneFlow's ``nn.Graph``).

    Subclass it, assign modules in ``__init__`` and write ``build``::

        class LinearGraph(flow.nn.Graph):
            def __init__(self, model):
                super().__init__()
                self.model = model

            def build(self, x):
                return self.model(x)

        graph = LinearGraph(model)
        y = graph(x)  # traced on the first call with x's shape/dtype/device, then replayed
    """

    def __init__(self) -> None:
        cls = type(self).__name__
        n = _counters.get(cls, 0)
        _counters[cls] = n + 1
        object.__setattr__(self, "_name", f"{cls}_{n}")
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_plans", {})
        object.__setattr__(self, "_debug_level", -1)
        object.__setattr__(self, "_optimizers", [])  # [(optimizer, lr scheduler or None)]
        object.__setattr__(self, "_train_step", 0)
        object.__setattr__(self, "config", GraphConfig())

    # -- modules --
    def __setattr__(self, name: str, value) -> None:
        if isinstance(value, GraphModule):
            value = value.origin
        if isinstance(value, oneflow.nn.Module):
            self._modules[name] = GraphModule(value, name, self._name + ".")
            return
        if isinstance(value, oneflow.optim.Optimizer):
            raise AttributeError(f"nn.Graph: use add_optimizer() for the optimizer {name!r}, not assignment")
        object.__setattr__(self, name, value)

    def __getattr__(self, name: str):
        modules = self.__dict__.get("_modules", {})
        if name in modules:
            return modules[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    @property
    def name(self) -> str:
        """``<Class>_<n>``: the n-th graph of this class."""
        return self._name

    @property
    def is_compiled(self) -> bool:
        """Whether a call has compiled the graph (for at least one input signature)."""
        return bool(self._plans)

    @property
    def training(self) -> bool:
        """Whether the graph trains: it has an optimizer."""
        return bool(self._optimizers)

    def modules(self):
        """The modules assigned to the graph (not their proxies)."""
        return (m.origin for m in self._modules.values())

    def named_parameters(self):
        """``(<module>.<parameter name>, parameter)`` for every module's parameters."""
        for name, proxy in self._modules.items():
            for pname, p in proxy.origin.named_parameters():
                yield f"{name}.{pname}", p

    def parameters(self):
        """The modules' parameters."""
        return (p for _, p in self.named_parameters())

    def state_dict(self) -> dict:
        """OneFlow's layout: ``{<module>: its state_dict()}``, and for a training graph the step
        count (``"System-Train-TrainStep"``) and the optimizers' state (see
        :mod:`oneflow.nn.graph.state`); ``load_state_dict`` of it resumes bit for bit."""
        from oneflow.nn.graph import state

        return state.state_dict(self)

    def load_state_dict(self, state_dict: dict, strict: bool = True) -> None:
        """Loads what :meth:`state_dict` gave; must come before the first call."""
        if self.is_compiled:
            raise RuntimeError(f"nn.Graph {self._name}: load_state_dict() must come before the first call")
        from oneflow.nn.graph import state

        state.load_state_dict(self, state_dict, strict)

    # -- building --
    def build(self, *args, **kwargs):
        """The computation: override it (OneFlow's ``nn.Graph.build``)."""
        raise NotImplementedError(f"nn.Graph {self._name}: a subclass must define build()")

    def add_optimizer(self, optimizer, *, lr_sch=None, is_sparse: bool = False) -> None:
        """Trains with ``optimizer`` (and steps ``lr_sch`` after it) on every call; ``build`` calls
        ``loss.backward()``. Must come before the first call."""
        if not isinstance(optimizer, oneflow.optim.Optimizer):
            raise TypeError(f"nn.Graph.add_optimizer(): expected an optimizer, got {type(optimizer).__name__}")
        if lr_sch is not None and getattr(lr_sch, "optimizer", None) is not optimizer:
            raise ValueError("nn.Graph.add_optimizer(): lr_sch schedules another optimizer than the one given")
        if self.is_compiled:
            raise RuntimeError(f"nn.Graph {self._name}: add_optimizer() must come before the first call")
        self._optimizers.append((optimizer, lr_sch))

    def _trained_parameters(self) -> list:
        params, seen = [], set()
        for opt, _ in self._optimizers:
            for group in opt.param_groups:
                for p in group["params"]:
                    if id(p) not in seen:
                        seen.add(id(p))
                        params.append(p)
        return params

    def _step(self, advance: bool = True) -> None:
        """The optimizers' step on the gradients in ``.grad`` (then the schedulers, unless
        ``advance`` is False: the step is being traced, and the schedulers follow the trace)."""
        for opt, _ in self._optimizers:
            if any(g.get("clip_grad_max_norm") is not None for g in opt.param_groups):
                opt.clip_grad()
            opt.step()
            opt.zero_grad(set_to_none=True)
        if advance:
            self._after_step()

    def _after_step(self) -> None:
        for _, sch in self._optimizers:
            if sch is not None:
                sch.step()
        object.__setattr__(self, "_train_step", self._train_step + 1)

    def set_grad_scaler(self, grad_scaler=None) -> None:
        raise NotImplementedError("nn.Graph: set_grad_scaler needs training graphs, which are not built yet")

    def debug(
        self,
        v_level: int = 0,
        *,
        ranks=None,
        max_py_stack_depth: int = 2,
        only_user_py_stack: bool = True,
        op_repr_with_py_stack: bool = False,
    ) -> None:
        """Prints compilation progress from now on: ``v_level`` 0 the stages, 1 also the ops; -1
        turns it off. The other arguments are accepted as OneFlow's."""
        if not isinstance(v_level, int):
            raise TypeError(f"nn.Graph.debug(): v_level must be an int, got {type(v_level).__name__}")
        object.__setattr__(self, "_debug_level", v_level)

    def __call__(self, *args, **kwargs):
        tensors: list = []
        seen: dict = {}
        spec = _flatten((args, kwargs), tensors, seen)
        key = _signature(spec, tensors)
        entry = self._plans.get(key)
        if entry is None:
            return self._compile(key, tensors, args, kwargs, with_step=False)
        if entry.step_in_plan is None and self.training:
            # The second call: the optimizer state exists; trace again with the step if it fuses.
            if in_plan.expects_fused_step(self._optimizers):
                return self._compile(key, tensors, args, kwargs, with_step=True)
            entry.step_in_plan = False
        if entry.step_in_plan and entry.hyperparameters != in_plan.hyperparameters(self._optimizers):
            # A hyperparameter the plan baked in changed: step eagerly from now on.
            out = self._compile(key, tensors, args, kwargs, with_step=False)
            self._plans[key].step_in_plan = False
            return out
        if entry.step_in_plan:
            for node, arg, group in entry.lr_slots:
                entry.plan.set_float_arg(node, arg, float(group["lr"]))
            results = entry.plan.run(tensors)
            self._after_step()
            return _unflatten(entry.out_spec, results)
        for fold in entry.folds:
            fold.refresh()
        results = entry.plan.run(tensors)
        n = len(results) - len(entry.grad_params)
        if entry.grad_params:
            for p, g in zip(entry.grad_params, results[n:]):
                p.grad = g
            self._step()
        return _unflatten(entry.out_spec, results[:n])

    def _compile(self, key, tensors, args, kwargs, with_step: bool):
        if self._debug_level >= 0:
            what = " with the optimizer step" if with_step else ""
            print(f"(GRAPH:{self._name}) compiling{what} for inputs {[tuple(t.shape) for t in tensors]}", flush=True)
        stack: list = []
        names = {id(m): f"{self._name}.{path}" for proxy in self._modules.values() for path, m in _named(proxy)}

        def enter(module, _inputs):
            path = names.get(id(module))
            if path is not None:
                stack.append(path)

        def leave(module, _inputs, _output):
            if names.get(id(module)) is not None and stack:
                stack.pop()

        hooks = [
            oneflow.nn.modules.module.register_module_forward_pre_hook(enter),
            oneflow.nn.modules.module.register_module_forward_hook(leave),
        ]
        params = self._trained_parameters()
        for p in params:
            p.grad = None  # the trace must see the gradients start from nothing
        _C._trace_begin()
        first_step_node = -1
        try:
            for t in tensors:
                _C._trace_input(t)
            with oneflow.set_grad_enabled(self.training):
                out = self.build(*args, **kwargs)
            out_tensors: list = []
            out_spec = _flatten(out, out_tensors, {})
            grad_params = [p for p in params if p.grad is not None]
            if with_step:
                first_step_node = in_plan.current_node_count()
                self._step(advance=False)
                plan = _C._trace_end(out_tensors)
            else:
                plan = _C._trace_end(out_tensors + [p.grad for p in grad_params])
        except Exception as e:
            _C._trace_abort()
            where = stack[-1] if stack else f"{self._name}.build"
            e.add_note(f"nn.Graph {self._name}: while tracing module {where}; {_user_frame(e.__traceback__)}")
            raise
        finally:
            for h in hooks:
                h.remove()
        entry = _Compiled(
            plan, out_spec, grad_params, [_tensor_meta(t) for t in tensors], [_tensor_meta(t) for t in out_tensors]
        )
        if with_step:
            slots = in_plan.lr_slots(plan, first_step_node, self._optimizers)
            if slots is None:  # the step did not fuse: it ran (at trace time); keep stepping eagerly
                previous = self._plans[key]
                previous.step_in_plan = False
                entry = previous
            else:
                entry.step_in_plan, entry.lr_slots = True, slots
                entry.hyperparameters = in_plan.hyperparameters(self._optimizers)
            self._after_step()
        elif grad_params:
            self._step()
        elif not self.training:
            entry.step_in_plan = False
            entry.plan, entry.folds = passes.fold_batch_norm(plan)
            plan = entry.plan
        self._plans[key] = entry
        out = _unflatten(out_spec, [t.detach() for t in out_tensors])
        if self._debug_level >= 0:
            print(f"(GRAPH:{self._name}) compiled: {plan.num_nodes} ops, {plan.num_constants} constants", flush=True)
        if self._debug_level >= 1:
            print(str(plan), flush=True)
        return out

    def _oneflow_save(self, path) -> None:
        """``oneflow.save(graph, path)``: see :mod:`oneflow.nn.graph.saved`."""
        from oneflow.nn.graph import saved

        saved.save(self, path)

    def __repr__(self) -> str:
        lines = [f"(GRAPH:{self._name}:{type(self).__name__}): ("]
        for proxy in self._modules.values():
            lines.append("  " + repr(proxy).replace("\n", "\n  "))
        for (_, meta), entry in itertools.islice(self._plans.items(), 4):
            plan = entry.plan
            lines.append(f"  (COMPILED for {[m[0] for m in meta]}): " + str(plan).replace("\n", "\n  "))
        lines.append(")")
        return "\n".join(lines)


class _Compiled:
    """One input signature's plan, with what a call needs around it."""

    def __init__(self, plan, out_spec, grad_params, in_meta, out_meta) -> None:
        self.plan, self.out_spec, self.grad_params = plan, out_spec, grad_params
        self.in_meta, self.out_meta = in_meta, out_meta
        # None: not tried yet (training graphs try on their second call); True: the optimizer
        # step is in the plan, its learning rates set through lr_slots.
        self.step_in_plan = None
        self.lr_slots: list = []
        self.folds: list = []  # batch norms folded into convolutions (passes.Fold)
        self.hyperparameters: list = []


def _tensor_meta(t) -> dict:
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("oneflow.", ""), "device": str(t.device)}


def _named(proxy: GraphModule):
    for name, module in proxy.origin.named_modules():
        yield (f"{proxy.name}.{name}" if name else proxy.name), module
