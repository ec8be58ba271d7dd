"""Saved graphs: ``oneflow.save(graph, path)`` writes a compiled inference graph to a directory, and
``oneflow.nn.graph.load(path)`` runs it without the model's Python code.

The directory holds two files, written to a temporary directory beside ``path`` and renamed into
place (a crash midway leaves any previous graph at ``path`` as it was):

``graph.json``
    ``{"format": "oneflow-graph", "version": 1, ...}``: the graph's name; its inputs (shape, dtype,
    device) and outputs (shape, dtype); the structure of ``build``'s arguments and results
    (``in_spec``/``out_spec``: tensors as ``{"T": i}``, lists ``{"L": [...]}``, tuples
    ``{"U": [...]}``, dicts ``{"D": [[key, spec], ...]}``, other values ``{"C": value}``); and the
    plan: ``num_values``, the value ids of the ``inputs`` and ``outputs``, and the ``nodes`` in
    order, each ``[op, args, tensor_ids, outputs]``: ``op`` is the registry's full name
    (``"max.dim"``), ``args`` the op's arguments in schema order with tensors as ``null`` (their
    value ids are in ``tensor_ids``, one list per argument), dtypes as ``{"dtype": name}``,
    devices as ``{"device": name}``, numbers passed for tensors as ``{"number": value}`` and
    generators as ``{"generator": null}`` (the default generator when loaded).
``constants``
    The plan's constant tensors (parameters, buffers, captured tensors), a ``oneflow.save``
    checkpoint of ``[[value id, tensor], ...]``.

A version other than 1 is refused with a clear error.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile

import oneflow
from oneflow import _C

__all__ = ["SavedGraph", "load", "save"]

FORMAT, VERSION = "oneflow-graph", 1


def _encode_value(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, tuple) and len(v) == 2 and v[0] == "number":
        return {"number": v[1]}
    if isinstance(v, list):
        return [_encode_value(x) for x in v]
    if isinstance(v, oneflow.dtype):
        return {"dtype": str(v).replace("oneflow.", "")}
    if isinstance(v, oneflow.device):
        return {"device": str(v)}
    if isinstance(v, oneflow.Generator):
        return {"generator": None}
    raise TypeError(f"nn.Graph save: an op argument of type {type(v).__name__} cannot be saved")


def _decode_value(v):
    if isinstance(v, list):
        return [_decode_value(x) for x in v]
    if isinstance(v, dict):
        if "number" in v:
            return ("number", v["number"])
        if "dtype" in v:
            return getattr(oneflow, v["dtype"])
        if "device" in v:
            return oneflow.device(v["device"])
        if "generator" in v:
            return None
        raise ValueError(f"nn.Graph load: unknown argument encoding {v!r}")
    return v


def _encode_spec(spec):
    kind, body = spec
    if kind == "T":
        return {"T": body}
    if kind in ("L", "U"):
        return {kind: [_encode_spec(s) for s in body]}
    if kind == "D":
        return {"D": [[k, _encode_spec(s)] for k, s in body]}
    try:
        json.dumps(body)
    except (TypeError, ValueError):
        raise TypeError(
            f"nn.Graph save: the constant {body!r} in the graph's inputs or outputs is not JSON data"
        ) from None
    return {"C": body}


def _decode_spec(spec):
    ((kind, body),) = spec.items()
    if kind == "T":
        return ("T", body)
    if kind in ("L", "U"):
        return (kind, tuple(_decode_spec(s) for s in body))
    if kind == "D":
        return ("D", tuple((k, _decode_spec(s)) for k, s in body))
    return ("C", body)


def save(graph, path) -> None:
    """Writes ``graph``'s compiled inference plan and its constants to the directory ``path``."""
    from oneflow.nn.graph.graph import Graph

    if not isinstance(graph, Graph):
        raise TypeError(f"nn.Graph save: expected an nn.Graph, got {type(graph).__name__}")
    if graph.training:
        raise NotImplementedError("nn.Graph save: saving a training graph is not supported; save an inference graph")
    if not graph._plans:
        raise RuntimeError(f"nn.Graph save: {graph.name} is not compiled yet; call it once before saving")
    if len(graph._plans) > 1:
        raise RuntimeError(
            f"nn.Graph save: {graph.name} is compiled for {len(graph._plans)} input signatures; a saved graph "
            "holds one (save a graph called with one signature)"
        )
    (((in_spec, _), entry),) = graph._plans.items()
    plan, out_spec, in_meta, out_meta = entry.plan, entry.out_spec, entry.in_meta, entry.out_meta
    nodes, num_values, inputs, outputs, constants = plan.export()
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "name": graph.name,
        "inputs": in_meta,
        "outputs": out_meta,
        "in_spec": _encode_spec(in_spec),
        "out_spec": _encode_spec(out_spec),
        "num_values": num_values,
        "input_ids": list(inputs),
        "output_ids": list(outputs),
        "nodes": [[op, [_encode_value(a) for a in args], ids, outs] for op, args, ids, outs in nodes],
    }
    path = os.fspath(path)
    parent = os.path.dirname(os.path.abspath(path))
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".graph-", dir=parent)
    try:
        with open(os.path.join(tmp, "graph.json"), "w") as f:
            json.dump(doc, f)
            f.flush()
            os.fsync(f.fileno())
        oneflow.save([[cid, t.detach()] for cid, t in constants], os.path.join(tmp, "constants"))
        old = None
        if os.path.exists(path):
            old = tempfile.mkdtemp(prefix=".graph-old-", dir=parent)
            os.rmdir(old)
            os.replace(path, old)
        os.replace(tmp, path)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


class SavedGraph:
    """A graph loaded from a directory written by ``oneflow.save(graph, path)``: call it like the
    graph (the same argument structure, tensors of the saved shapes and dtypes).

    Attributes:
        name: the saved graph's name.
        inputs, outputs: per tensor, its ``shape``, ``dtype`` and ``device`` (outputs: from the
            compiling call).
    """

    def __init__(self, doc: dict, plan) -> None:
        self.name = doc["name"]
        self.inputs = doc["inputs"]
        self.outputs = doc["outputs"]
        self._in_spec = _decode_spec(doc["in_spec"])
        self._out_spec = _decode_spec(doc["out_spec"])
        self._plan = plan

    def __call__(self, *args, **kwargs):
        from oneflow.nn.graph.graph import _flatten, _tensor_meta, _unflatten

        tensors: list = []
        spec = _flatten((args, kwargs), tensors, {})
        if spec != self._in_spec:
            raise ValueError(
                f"nn.Graph {self.name}: the call's arguments do not have the saved structure; expected "
                f"{len(self.inputs)} tensors as in the compiling call"
            )
        for i, (t, want) in enumerate(zip(tensors, self.inputs)):
            got = _tensor_meta(t)
            if got["shape"] != want["shape"] or got["dtype"] != want["dtype"]:
                raise ValueError(
                    f"nn.Graph {self.name}: input {i} has shape {got['shape']} and dtype {got['dtype']}, the "
                    f"saved graph takes shape {want['shape']} and dtype {want['dtype']}"
                )
        return _unflatten(self._out_spec, self._plan.run(tensors))

    def run(self, tensors: list) -> list:
        """The outputs for the input tensors in order (serving's entry point: no structure)."""
        return self._plan.run(list(tensors))

    def __repr__(self) -> str:
        return f"SavedGraph({self.name!r}, inputs={self.inputs}, outputs={self.outputs})"


def load(path, map_location=None) -> SavedGraph:
    """Loads a graph saved by ``oneflow.save(graph, path)``; it runs without the model's code."""
    path = os.fspath(path)
    try:
        with open(os.path.join(path, "graph.json")) as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise FileNotFoundError(f"nn.Graph load: {path} holds no saved graph (no graph.json)") from None
    if doc.get("format") != FORMAT:
        raise ValueError(f"nn.Graph load: {path} is not a saved oneflow graph")
    if doc.get("version") != VERSION:
        raise ValueError(f"nn.Graph load: {path} has format version {doc.get('version')}; this oneflow reads {VERSION}")
    constants = oneflow.load(os.path.join(path, "constants"), map_location=map_location)
    nodes = [(op, [_decode_value(a) for a in args], ids, outs) for op, args, ids, outs in doc["nodes"]]
    plan = _C._plan_import(
        nodes, doc["num_values"], doc["input_ids"], doc["output_ids"], [(cid, t) for cid, t in constants]
    )
    return SavedGraph(doc, plan)
