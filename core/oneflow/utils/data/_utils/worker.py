"""What runs inside a DataLoader worker process, and what it tells the main process.

A worker seeds its random generators from the iterator's base seed, publishes a
:class:`WorkerInfo` (see :func:`get_worker_info`), runs ``worker_init_fn``, then
serves ``(task id, indices)`` requests from its index queue until it receives
``None``, answering each on the shared result queue with a batch (see
``shm.pack``), an :class:`ExceptionWrapper`, or, for an iterable dataset that has
run out, an :class:`IterableDatasetStopIteration`.
"""

from __future__ import annotations

import os
import pickle
import queue
import random
import sys
import traceback
from dataclasses import dataclass
from typing import Any

import numpy as np

import oneflow
from oneflow.utils.data._utils import fetch, shm

# How often (seconds) a waiting worker checks that the main process is still alive.
MP_STATUS_CHECK_INTERVAL = 5.0

_worker_info: WorkerInfo | None = None


class WorkerInfo:
    """Describes the current DataLoader worker: ``id``, ``num_workers``, ``seed`` and ``dataset``
    (the worker's own copy). Read-only."""

    id: int
    num_workers: int
    seed: int
    dataset: Any
    __initialized = False

    def __init__(self, **kwargs: Any) -> None:
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs)
        self.__initialized = True

    def __setattr__(self, key: str, val: Any) -> None:
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        super().__setattr__(key, val)

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, k)}" for k in self.__keys)
        return f"{self.__class__.__name__}({fields})"


def get_worker_info() -> WorkerInfo | None:
    """In a DataLoader worker process, the :class:`WorkerInfo` of this worker; None elsewhere.

    An :class:`~oneflow.utils.data.IterableDataset` uses it in ``__iter__`` (or a
    ``worker_init_fn``) to give each worker its own share of the data::

        info = get_worker_info()
        if info is not None:
            start = info.id  # and step by info.num_workers
    """
    return _worker_info


class KeyErrorMessage(str):
    """A KeyError message that prints as written (KeyError shows its argument's repr)."""

    def __repr__(self) -> str:
        return self


class ExceptionWrapper:
    """An exception caught in a worker, carried to the main process with its traceback text."""

    def __init__(self, exc_info=None, where: str = "in background") -> None:
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where
        try:
            pickle.dumps(self.exc_type)
        except Exception:  # a class defined in a local scope cannot travel
            self.exc_type = RuntimeError

    def reraise(self):
        """Raises the exception again (of the same type where possible), with the worker's traceback."""
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            # Exceptions whose constructor needs a keyword `message`.
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            # The type cannot be built from one message; keep the text.
            raise RuntimeError(msg) from None
        raise exception


@dataclass(frozen=True)
class IterableDatasetStopIteration:
    """A worker's iterable dataset has no more samples."""

    worker_id: int


@dataclass(frozen=True)
class ResumeIteration:
    """Asks a persistent worker to start a new epoch; the worker echoes it back."""


def numpy_seed(base_seed: int, worker_id: int) -> np.ndarray:
    """The NumPy global seed of a worker: 128 bits mixed from the worker id and the base seed."""
    return np.random.SeedSequence([worker_id, base_seed & 0xFFFFFFFF, base_seed >> 32]).generate_state(4)


class _ParentWatchdog:
    """Tells whether the process that started this worker is still alive."""

    def __init__(self) -> None:
        self._parent = os.getppid()
        self._alive = True

    def is_alive(self) -> bool:
        if self._alive:
            self._alive = os.getppid() == self._parent
        return self._alive


def worker_loop(
    dataset_kind: int,
    dataset: Any,
    index_queue,
    data_queue,
    done_event,
    auto_collation: bool,
    collate_fn,
    drop_last: bool,
    base_seed: int,
    init_fn,
    worker_id: int,
    num_workers: int,
    shm_prefix: str,
) -> None:
    """The body of a worker process (see the module docstring)."""
    global _worker_info
    watchdog = None
    try:
        # One thread per worker: the workers are the parallelism, and OpenMP's pool from
        # before the fork must not be used in the child.
        oneflow.set_num_threads(1)
        seed = base_seed + worker_id
        random.seed(seed)
        oneflow.manual_seed(seed)
        np.random.seed(numpy_seed(base_seed, worker_id))
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        where = f"in DataLoader worker process {worker_id}"

        init_exception = None
        fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = fetch.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_exception = ExceptionWrapper(where=where)

        iteration_end = False
        watchdog = _ParentWatchdog()
        while watchdog.is_alive():
            try:
                request = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                continue
            if isinstance(request, ResumeIteration):
                data_queue.put((request, None))
                iteration_end = False
                if init_exception is None:
                    fetcher = fetch.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
                continue
            if request is None:
                break
            if done_event.is_set() or iteration_end:
                continue  # the main process is shutting down, or this worker has no more data
            task_id, index = request
            if init_exception is not None:
                data, init_exception = init_exception, None
            else:
                try:
                    data = shm.pack(fetcher.fetch(index), shm_prefix)
                except StopIteration:
                    if dataset_kind != fetch.ITERABLE:
                        data = ExceptionWrapper(where=where)
                    else:
                        data = IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                except Exception:
                    data = ExceptionWrapper(where=where)
            data_queue.put((task_id, data))
            del data, index, request
    except KeyboardInterrupt:
        pass  # the main process handles the interrupt and stops the workers
    orphaned = watchdog is not None and not watchdog.is_alive()
    if orphaned:
        shm.remove_prefix(shm_prefix)  # no one is left to receive them
    if done_event.is_set() or orphaned:
        # Nobody will read what is still buffered: exit without flushing it (the main
        # process removes shared-memory files that were never received).
        data_queue.cancel_join_thread()
        data_queue.close()
