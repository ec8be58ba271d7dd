"""``oneflow.one_embedding``: OneFlow's large embedding tables, the CPU-capable part.

An embedding maps ids (any int64/int32 keys, not a dense range) to rows created on first lookup
from their table's initializer. Rows live in a key-value store (here an in-memory dict of rows
per process; OneFlow's store options are accepted and their ``persistent_path`` is where snapshots
go). The rows of a lookup get gradients; an optimizer that holds the embedding's parameter
(``flow.optim.SGD`` with momentum/weight decay, or ``flow.optim.Adam``/``AdamW``, as in OneFlow)
updates exactly the rows looked up since its last step, keeping per-row optimizer state in the
store (OneFlow's ``size_factor``), so untouched rows never change (lazy, "sparse" updates).
Global ids shard the rows over the processes (``oneflow.distributed.global_one_embedding``).

    >>> tables = [flow.one_embedding.make_table_options(flow.one_embedding.make_uniform_initializer(-0.1, 0.1))]
    >>> store = flow.one_embedding.make_cached_host_mem_store_options(64, "/tmp/emb", capacity=1000)
    >>> emb = flow.one_embedding.MultiTableEmbedding("emb", 8, flow.float, flow.int64, tables, store)
    >>> opt = flow.optim.SGD(emb.parameters(), lr=0.1)
    >>> emb(flow.tensor([[3, 70000]])).sum().backward(); opt.step()
"""

from __future__ import annotations

import os
import weakref

import numpy as np

import oneflow
from oneflow import _plugin
from oneflow.nn import Module, Parameter

_U64 = 1 << 64

__all__ = [
    "Embedding",
    "MultiTableEmbedding",
    "MultiTableMultiColumnEmbedding",
    "make_cached_host_mem_store_options",
    "make_cached_ssd_store_options",
    "make_column_options",
    "make_device_mem_store_options",
    "make_normal_initializer",
    "make_table",
    "make_table_options",
    "make_uniform_initializer",
]


# ---- options (plain dicts, as OneFlow's) ---------------------------------------------------------


def _number(fn: str, name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{fn}(): {name} must be a number, but got {type(value).__name__}")
    return float(value)


def make_uniform_initializer(low: float, high: float) -> dict:
    """An initializer drawing each element uniformly from ``[low, high)``."""
    low, high = _number("make_uniform_initializer", "low", low), _number("make_uniform_initializer", "high", high)
    if not low <= high:
        raise ValueError(f"make_uniform_initializer(): low ({low}) must be <= high ({high})")
    return {"type": "uniform", "low": low, "high": high}


def make_normal_initializer(mean: float, std: float) -> dict:
    """An initializer drawing each element from ``N(mean, std**2)``."""
    mean, std = _number("make_normal_initializer", "mean", mean), _number("make_normal_initializer", "std", std)
    if std < 0:
        raise ValueError(f"make_normal_initializer(): std must be >= 0, but got {std}")
    return {"type": "normal", "mean": mean, "std": std}


def _check_initializer(fn: str, initializer) -> dict:
    if not isinstance(initializer, dict) or initializer.get("type") not in ("uniform", "normal"):
        raise ValueError(
            f"{fn}(): expected an initializer from make_uniform_initializer/make_normal_initializer, "
            f"got {initializer!r}"
        )
    return initializer


def make_column_options(initializer: dict) -> dict:
    """The options of one column of a multi-column table."""
    return {"initializer": _check_initializer("make_column_options", initializer)}


def make_table_options(param) -> dict:
    """The options of one table: an initializer, or a list of column options (one per column of a
    :class:`MultiTableMultiColumnEmbedding`)."""
    if isinstance(param, (list, tuple)):
        return {"columns": [c if "initializer" in c else make_column_options(c) for c in param]}
    return {"initializer": _check_initializer("make_table_options", param)}


make_table = make_table_options


def _store(caches: list, persistent_path, capacity, size_factor: int, physical_block_size: int) -> dict:
    if not isinstance(persistent_path, (str, os.PathLike, list, tuple)):
        raise TypeError(
            f"persistent_path must be a path or a list of paths (one per rank), got {type(persistent_path).__name__}"
        )
    if capacity is not None and (isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 0):
        raise ValueError(f"capacity must be a non-negative int, got {capacity!r}")
    if size_factor not in (1, 2, 3):
        raise ValueError(f"size_factor must be 1 (SGD), 2 (SGD with momentum) or 3 (Adam), got {size_factor!r}")
    path = (
        [os.fspath(p) for p in persistent_path]
        if isinstance(persistent_path, (list, tuple))
        else os.fspath(persistent_path)
    )
    return {
        "kv_store": {
            "caches": caches,
            "persistent_table": {
                "path": path,
                "physical_block_size": physical_block_size,
                "capacity_hint": int(capacity or 0),
            },
        },
        "size_factor": size_factor,
    }


def make_device_mem_store_options(
    persistent_path, capacity: int, size_factor: int = 1, physical_block_size: int = 512
) -> dict:
    """Store options keeping every row in device memory (OneFlow's GPU-only store); here rows
    live in host memory."""
    return _store(
        [{"policy": "full", "capacity": int(capacity), "value_memory_kind": "device"}],
        persistent_path,
        capacity,
        size_factor,
        physical_block_size,
    )


def make_cached_ssd_store_options(
    cache_budget_mb: int,
    persistent_path,
    capacity=None,
    size_factor: int = 1,
    physical_block_size: int = 512,
    host_cache_budget_mb: int = 0,
) -> dict:
    """Store options for rows on an SSD under ``persistent_path`` with device/host caches
    (accepted; rows live in host memory here, snapshots under ``persistent_path``)."""
    if not (cache_budget_mb > 0 or host_cache_budget_mb > 0):
        raise ValueError("make_cached_ssd_store_options(): cache_budget_mb or host_cache_budget_mb must be > 0")
    caches = [{"policy": "lru", "cache_memory_budget_mb": cache_budget_mb, "value_memory_kind": "device"}]
    return _store(caches, persistent_path, capacity, size_factor, physical_block_size)


def make_cached_host_mem_store_options(
    cache_budget_mb: int, persistent_path, capacity: int, size_factor: int = 1, physical_block_size: int = 512
) -> dict:
    """Store options for rows in host memory with a device cache."""
    caches = [
        {"policy": "lru", "cache_memory_budget_mb": cache_budget_mb, "value_memory_kind": "device"},
        {"policy": "full", "capacity": int(capacity), "value_memory_kind": "host"},
    ]
    return _store(caches, persistent_path, capacity, size_factor, physical_block_size)


# ---- the embedding --------------------------------------------------------------------------------


class Embedding(Module):
    """OneFlow's one_embedding module (see the module docstring); use :class:`MultiTableEmbedding`
    or :class:`MultiTableMultiColumnEmbedding`."""

    def __init__(
        self,
        name: str,
        embedding_dim,
        dtype,
        key_type,
        tables,
        store_options: dict,
        default_initializer: dict | None = None,
    ) -> None:
        super().__init__()
        if not isinstance(name, str) or not name:
            raise ValueError(f"one_embedding: name must be a non-empty str, got {name!r}")
        dims = list(embedding_dim) if isinstance(embedding_dim, (list, tuple)) else [embedding_dim]
        if not dims or any(isinstance(d, bool) or not isinstance(d, int) or d <= 0 for d in dims):
            raise ValueError(
                f"one_embedding: embedding_dim must be a positive int (or a list of them), got {embedding_dim!r}"
            )
        if key_type not in (oneflow.int64, oneflow.int32):
            raise TypeError(f"one_embedding: key_type must be oneflow.int64 or oneflow.int32, got {key_type}")
        if not isinstance(dtype, oneflow.dtype) or not dtype.is_floating_point:
            raise TypeError(f"one_embedding: dtype must be a floating dtype, got {dtype}")
        if not isinstance(store_options, dict) or "kv_store" not in store_options:
            raise ValueError("one_embedding: store_options must come from a make_*_store_options function")
        default = _check_initializer("one_embedding", default_initializer or make_normal_initializer(0.0, 0.05))
        if tables is None:
            tables = [make_table_options(default)]
        self.name, self.dtype, self.key_type = name, dtype, key_type
        self.column_dims = dims
        self.embedding_dim = sum(dims)
        self._columns = [self._table_columns(t, len(dims)) for t in tables]
        self.num_tables = len(self._columns)
        path = store_options["kv_store"]["persistent_table"]["path"]
        rank, world = self._rank_and_world()
        self.persistent_path = path[rank] if isinstance(path, list) else os.path.join(path, f"{rank}-{world}")
        self._rows: dict = {}  # key -> float64 row (value); optimizer state in _state[name][key]
        self._state: dict = {}
        self._pending: list = []  # (unique keys, leaf rows tensor) of lookups since the last step
        # None for local ids; "split"/"broadcast" once looked up with global ids, whose rows are
        # sharded over the processes (oneflow.distributed.global_one_embedding).
        self._global_mode = None
        # The parameter an optimizer holds for this embedding (OneFlow's "shadow"): it learns of the
        # optimizers and applies their updates to the looked-up rows.
        self.shadow = Parameter(oneflow.zeros(1))
        owner = weakref.ref(self)
        self.shadow._attach_optimizer = lambda opt: owner() is not None and owner()._attach(opt)

    @staticmethod
    def _global():
        return _plugin.load_hook(
            "global_one_embedding", "one_embedding: global ids need the oneflow-distributed package"
        )

    @staticmethod
    def _rank_and_world() -> tuple:
        return int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1"))

    @staticmethod
    def _table_columns(table, ncols: int) -> list:
        if not isinstance(table, dict) or not ("initializer" in table or "columns" in table):
            raise ValueError(f"one_embedding: each table must come from make_table_options, got {table!r}")
        if "columns" in table:
            if len(table["columns"]) != ncols:
                raise ValueError(f"one_embedding: a table has {len(table['columns'])} columns, expected {ncols}")
            return [_check_initializer("one_embedding", c["initializer"]) for c in table["columns"]]
        return [_check_initializer("one_embedding", table["initializer"])] * ncols

    # -- rows --
    def _new_row(self, table: int, key: int) -> np.ndarray:
        # Drawn from a generator keyed by (seed, table, key): a row does not depend on the order
        # of lookups or on which process creates it, so sharded (global) tables equal local ones.
        rng = np.random.default_rng([oneflow.initial_seed() % _U64, table, key % _U64])
        parts = []
        for init, dim in zip(self._columns[table], self.column_dims):
            if init["type"] == "uniform":
                parts.append(rng.uniform(init["low"], init["high"], dim))
            else:
                parts.append(rng.normal(init["mean"], init["std"], dim))
        return np.concatenate(parts)

    def _table_ids(self, ids, table_ids) -> np.ndarray:
        if table_ids is not None:
            if not isinstance(table_ids, oneflow.Tensor) or tuple(table_ids.shape) != tuple(ids.shape):
                raise ValueError("one_embedding: table_ids must be a tensor of the ids' shape")
            t = table_ids.numpy().astype(np.int64)
        elif self.num_tables == 1:
            t = np.zeros(tuple(ids.shape), np.int64)
        elif ids.ndim == 2 and ids.shape[1] == self.num_tables:
            t = np.broadcast_to(np.arange(self.num_tables), tuple(ids.shape))
        else:
            raise ValueError(
                f"one_embedding: with {self.num_tables} tables, pass table_ids or ids of shape "
                f"(batch, {self.num_tables}); got ids of shape {tuple(ids.shape)}"
            )
        if t.size and (t.min() < 0 or t.max() >= self.num_tables):
            raise ValueError(f"one_embedding: table_ids must be in [0, {self.num_tables})")
        return t

    def forward(self, ids, table_ids=None):
        """The rows of ``ids`` (shape ``ids.shape + (embedding_dim,)``), created from their table's
        initializer on first lookup; gradients flow to the rows."""
        if not isinstance(ids, oneflow.Tensor):
            raise TypeError(f"one_embedding: ids must be a Tensor, got {type(ids).__name__}")
        if ids.dtype != self.key_type:
            raise TypeError(f"one_embedding: ids data_type must equal key_type ({self.key_type}), got {ids.dtype}")
        if ids.is_global:
            return self._global().lookup(self, ids, table_ids)
        if self._global_mode is not None:
            raise RuntimeError("one_embedding: this embedding holds a shard of global rows; look it up with global ids")
        keys = ids.numpy().astype(np.int64)
        tables = self._table_ids(ids, table_ids)
        unique, first, inverse = np.unique(keys.reshape(-1), return_index=True, return_inverse=True)
        flat_tables = tables.reshape(-1)
        for k, i in zip(unique.tolist(), first.tolist()):
            if k not in self._rows:
                self._rows[k] = self._new_row(int(flat_tables[i]), k)
        values = (
            np.stack([self._rows[k] for k in unique.tolist()]) if len(unique) else np.zeros((0, self.embedding_dim))
        )
        rows = oneflow.tensor(values, dtype=self.dtype, requires_grad=oneflow.is_grad_enabled())
        if rows.requires_grad:
            self._pending.append((unique, rows))
        out = rows[oneflow.tensor(inverse.reshape(-1), dtype=oneflow.int64)]
        return out.reshape(*keys.shape, self.embedding_dim)

    # -- optimizer updates --
    def _attach(self, optimizer) -> None:
        if not isinstance(optimizer, (oneflow.optim.SGD, oneflow.optim.Adam, oneflow.optim.AdamW)):
            raise NotImplementedError(
                f"one_embedding: {type(optimizer).__name__} cannot update embedding rows (SGD, Adam and AdamW can)"
            )
        optimizer.register_step_post_hook(lambda opt, args, kwargs: self._apply(opt))

    def _group(self, optimizer) -> dict:
        for group in optimizer.param_groups:
            if any(p is self.shadow for p in group["params"]):
                return group
        raise RuntimeError("one_embedding: the optimizer does not hold this embedding")

    def _apply(self, optimizer) -> None:
        pending, self._pending = self._pending, []
        grads: dict = {}
        for keys, rows in pending:
            if rows.grad is None:
                continue
            g = rows.grad.numpy().astype(np.float64)
            for k, row_grad in zip(keys.tolist(), g):
                grads[k] = grads[k] + row_grad if k in grads else row_grad
        if self._global_mode is not None:  # every rank takes part, with or without gradients
            grads = self._global().route_grads(self, grads)
        if not grads:
            return
        group = self._group(optimizer)
        lr, wd = float(group["lr"]), float(group.get("weight_decay", 0.0))
        if isinstance(optimizer, oneflow.optim.SGD):
            self._sgd(
                grads,
                lr,
                wd,
                float(group.get("momentum", 0.0)),
                float(group.get("dampening", 0.0)),
                bool(group.get("nesterov", False)),
            )
        else:
            self._adam(grads, group, lr, wd, decoupled=isinstance(optimizer, oneflow.optim.AdamW))

    def _sgd(self, grads, lr, wd, momentum, dampening, nesterov) -> None:
        bufs = self._state.setdefault("momentum", {})
        for k, g in grads.items():
            w = self._rows[k]
            g = g + wd * w if wd else g
            if momentum:
                buf = g.copy() if k not in bufs else momentum * bufs[k] + (1 - dampening) * g
                bufs[k] = buf
                g = g + momentum * buf if nesterov else buf
            self._rows[k] = w - lr * g

    def _adam(self, grads, group, lr, wd, decoupled: bool) -> None:
        b1, b2 = (float(b) for b in group["betas"])
        eps = float(group["eps"])
        correct = bool(group.get("do_bias_correction", True))
        m, v, steps = (self._state.setdefault(n, {}) for n in ("exp_avg", "exp_avg_sq", "step"))
        for k, g in grads.items():
            w = self._rows[k]
            if wd and decoupled:
                w = w * (1 - lr * wd)
            elif wd:
                g = g + wd * w
            steps[k] = steps.get(k, 0) + 1
            m[k] = b1 * m.get(k, 0.0) + (1 - b1) * g
            v[k] = b2 * v.get(k, 0.0) + (1 - b2) * g * g
            c1 = 1 - b1 ** steps[k] if correct else 1.0
            c2 = 1 - b2 ** steps[k] if correct else 1.0
            self._rows[k] = w - lr * (m[k] / c1) / (np.sqrt(v[k] / c2) + eps)

    # -- snapshots --
    def _snapshot_dir(self, snapshot_name: str) -> str:
        if not isinstance(snapshot_name, str) or not snapshot_name or os.sep in snapshot_name:
            raise ValueError(f"one_embedding: snapshot_name must be a plain non-empty name, got {snapshot_name!r}")
        return os.path.join(self.persistent_path, "snapshots", snapshot_name)

    def save_snapshot(self, snapshot_name: str) -> None:
        """Saves every row and its optimizer state under ``<persistent_path>/snapshots/<name>``."""
        directory = self._snapshot_dir(snapshot_name)
        os.makedirs(directory, exist_ok=True)
        keys = np.array(sorted(self._rows), dtype=np.int64)
        arrays = {
            "keys": keys,
            "values": np.stack([self._rows[k] for k in keys.tolist()])
            if len(keys)
            else np.zeros((0, self.embedding_dim)),
        }
        for state_name, per_key in self._state.items():
            state_keys = np.array(sorted(per_key), dtype=np.int64)
            arrays[f"state_keys.{state_name}"] = state_keys
            arrays[f"state.{state_name}"] = np.array([per_key[k] for k in state_keys.tolist()])
        np.savez(os.path.join(directory, "rows.npz"), **arrays)

    def load_snapshot(self, snapshot_name: str) -> None:
        """Replaces every row and its optimizer state with those saved by :meth:`save_snapshot`."""
        path = os.path.join(self._snapshot_dir(snapshot_name), "rows.npz")
        if not os.path.exists(path):
            raise FileNotFoundError(f"one_embedding: no snapshot {snapshot_name!r} under {self.persistent_path}")
        with np.load(path) as data:
            if data["values"].shape[1:] != (self.embedding_dim,):
                raise ValueError(
                    f"one_embedding: snapshot rows have {data['values'].shape[1:]} columns, "
                    f"this embedding {self.embedding_dim}"
                )
            self._rows = {int(k): row.copy() for k, row in zip(data["keys"], data["values"])}
            self._state = {}
            for entry in data.files:
                if entry.startswith("state."):
                    state_name = entry[len("state.") :]
                    self._state[state_name] = {
                        int(k): v.copy() for k, v in zip(data[f"state_keys.{state_name}"], data[entry])
                    }
        self._pending = []

    def extra_repr(self) -> str:
        return f"name={self.name!r}, embedding_dim={self.embedding_dim}, num_tables={self.num_tables}"


class MultiTableEmbedding(Embedding):
    """Several embedding tables of one width sharing one key space (ids must not collide across
    tables); each table has its own initializer. OneFlow's
    ``MultiTableEmbedding(name, embedding_dim, dtype, key_type, tables, store_options, default_initializer=None)``.
    """

    def __init__(
        self,
        name: str,
        embedding_dim: int,
        dtype,
        key_type,
        tables,
        store_options: dict,
        default_initializer: dict | None = None,
    ) -> None:
        if isinstance(embedding_dim, (list, tuple)):
            raise TypeError(
                "MultiTableEmbedding: embedding_dim must be an int (MultiTableMultiColumnEmbedding takes a list)"
            )
        super().__init__(name, embedding_dim, dtype, key_type, tables, store_options, default_initializer)


class MultiTableMultiColumnEmbedding(Embedding):
    """Like :class:`MultiTableEmbedding`, with rows made of columns of widths ``embedding_dim`` (a
    list), each column with its own initializer (``make_table_options([column options...])``)."""

    def __init__(
        self,
        name: str,
        embedding_dim,
        dtype,
        key_type,
        tables,
        store_options: dict,
        default_initializer: dict | None = None,
    ) -> None:
        super().__init__(name, embedding_dim, dtype, key_type, tables, store_options, default_initializer)
