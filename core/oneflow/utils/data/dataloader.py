"""DataLoader: batches from a dataset, loaded in the main process or in worker processes.

With ``num_workers=0`` each batch is fetched and collated in the calling process.
With ``num_workers > 0`` the main process runs the sampler and hands batches of
indices to the workers in turn, keeping ``prefetch_factor`` requests per worker in
flight; each worker fetches and collates its batches and returns them through
shared memory (see ``_utils/shm.py``), and the main process delivers them in
sampler order (or as they arrive with ``in_order=False``).
"""

from __future__ import annotations

import atexit
import itertools
import multiprocessing
import multiprocessing.connection
import os
import queue
import signal
import sys
import warnings
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Generic, TypeVar

import oneflow
from oneflow.utils.data._utils import fetch, shm
from oneflow.utils.data._utils.collate import default_collate, default_convert
from oneflow.utils.data._utils.worker import (
    MP_STATUS_CHECK_INTERVAL,
    ExceptionWrapper,
    IterableDatasetStopIteration,
    ResumeIteration,
    get_worker_info,
    worker_loop,
)
from oneflow.utils.data.dataset import Dataset, IterableDataset
from oneflow.utils.data.sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, _draw_seed

T_co = TypeVar("T_co", covariant=True)

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]


class _DatasetKind:
    Map = fetch.MAP
    Iterable = fetch.ITERABLE


class _InfiniteConstantSampler(Sampler):
    """Yields None forever: the "indices" of an iterable dataset, which picks its own samples."""

    def __iter__(self):
        while True:
            yield None


def _default_context():
    # fork on Linux: workers start fast and inherit the dataset without pickling it.
    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


class DataLoader(Generic[T_co]):
    """Iterates over a dataset in batches.

    Args:
        dataset: a map-style :class:`Dataset` or an :class:`IterableDataset`.
        batch_size: samples per batch; None turns automatic batching off (each item is
            then converted with ``default_convert`` instead of collated).
        shuffle: visit a map-style dataset in a new random order each epoch.
        sampler: the order of indices (any iterable of them); excludes ``shuffle``.
        batch_sampler: yields whole batches of indices; excludes ``batch_size``,
            ``shuffle``, ``sampler`` and ``drop_last``.
        num_workers: worker processes loading the data; 0 loads in the main process.
        collate_fn: merges a list of samples into a batch (``default_collate``).
        pin_memory: accepted for compatibility; CPU batches are returned as they are.
        drop_last: drop the last batch when it is smaller than ``batch_size``.
        timeout: seconds to wait for a batch from the workers before raising
            RuntimeError; 0 waits as long as it takes.
        worker_init_fn: called as ``worker_init_fn(worker_id)`` in each worker after
            seeding and before loading.
        multiprocessing_context: the start method (``"fork"``, ``"spawn"``,
            ``"forkserver"``) or a multiprocessing context for the workers; fork on Linux
            by default.
        generator: the generator of the random sampler and of the workers' base seed.
        prefetch_factor: batches requested ahead per worker (2 when ``num_workers > 0``).
        persistent_workers: keep the workers (and their dataset copies) between epochs.
        pin_memory_device: accepted for compatibility.
        in_order: deliver batches in sampler order; False returns each as it arrives.

    Worker ``i`` seeds ``random`` and oneflow's default generator with ``base_seed + i``
    (its :class:`~oneflow.utils.data.get_worker_info` ``seed``) and NumPy's global
    generator from both, where ``base_seed`` is drawn from ``generator`` (or the default
    generator) for each new set of workers.
    """

    dataset: Dataset[T_co]
    batch_size: int | None
    num_workers: int
    pin_memory: bool
    drop_last: bool
    timeout: float
    sampler: Sampler | Iterable
    prefetch_factor: int | None
    _iterator: Any

    __initialized = False

    def __init__(
        self,
        dataset: Dataset[T_co],
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Sampler | Iterable | None = None,
        batch_sampler: Sampler[Sequence] | Iterable[Sequence] | None = None,
        num_workers: int = 0,
        collate_fn: Callable[[list], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable[[int], None] | None = None,
        multiprocessing_context=None,
        generator: oneflow.Generator | None = None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        if num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing."
            )
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to enable "
                "multiprocessing, otherwise set prefetch_factor to None."
            )
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        if prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Iterable
            # The dataset decides the order: samplers and shuffling do not apply.
            if isinstance(shuffle, bool) and not shuffle:
                shuffle = None
            if shuffle is not None:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified sampler option, but got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler option, but got "
                    f"batch_sampler={batch_sampler}"
                )
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = _DatasetKind.Map

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive with drop_last"
            )

        if sampler is None:
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)  # type: ignore[arg-type]
            else:
                sampler = SequentialSampler(dataset)  # type: ignore[arg-type]
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._IterableDataset_len_called: int | None = None
        self._iterator = None
        self.__initialized = True

    @property
    def multiprocessing_context(self):
        """The multiprocessing context of the workers (None: the default, fork on Linux)."""
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context) -> None:
        if context is not None:
            if self.num_workers <= 0:
                raise ValueError(
                    "multiprocessing_context can only be used with multi-process loading (num_workers > 0), but got "
                    f"num_workers={self.num_workers}"
                )
            if isinstance(context, str):
                methods = multiprocessing.get_all_start_methods()
                if context not in methods:
                    raise ValueError(
                        "multiprocessing_context option should specify a valid start method in "
                        f"{methods!r}, but got multiprocessing_context={context!r}"
                    )
                context = multiprocessing.get_context(context)
            if not isinstance(context, multiprocessing.context.BaseContext):
                raise TypeError(
                    "multiprocessing_context option should be a valid context object or a string specifying the "
                    f"start method, but got multiprocessing_context={context}"
                )
        self.__multiprocessing_context = context

    def __setattr__(self, attr: str, val: Any) -> None:
        if self.__initialized and attr in (
            "batch_size",
            "batch_sampler",
            "sampler",
            "drop_last",
            "dataset",
            "persistent_workers",
        ):
            raise ValueError(f"{attr} attribute should not be set after {self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    def _get_iterator(self) -> _BaseDataLoaderIter:
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        return _MultiProcessingDataLoaderIter(self)

    def __iter__(self) -> _BaseDataLoaderIter:
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None or self._iterator._shutdown:
                # First epoch, or the workers were stopped (a worker died): start new ones.
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        # What the iterators draw from: whole batches of indices, or single indices.
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self) -> int:
        """The number of batches: from the sampler, or for an iterable dataset from its ``len()``
        (per worker data sharding is the dataset's business, so this may be inexact)."""
        if self._dataset_kind == _DatasetKind.Iterable:
            length = self._IterableDataset_len_called = len(self.dataset)  # type: ignore[arg-type]
            if self.batch_size is not None:
                if self.drop_last:
                    length = length // self.batch_size
                else:
                    length = -(-length // self.batch_size)
            return length
        return len(self._index_sampler)


class _BaseDataLoaderIter:
    def __init__(self, loader: DataLoader) -> None:
        self._dataset = loader.dataset
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._prefetch_factor = loader.prefetch_factor
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._persistent_workers = loader.persistent_workers
        self._in_order = loader.in_order
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = _draw_seed(loader.generator)
        self._num_yielded = 0
        self._profile_name = f"enumerate(DataLoader)#{self.__class__.__name__}.__next__"

    def __iter__(self) -> _BaseDataLoaderIter:
        return self

    def _reset(self, loader: DataLoader, first_iter: bool = False) -> None:
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)  # StopIteration ends the epoch

    def _next_data(self):
        raise NotImplementedError

    def __next__(self) -> Any:
        data = self._next_data()
        self._num_yielded += 1
        if (
            self._dataset_kind == _DatasetKind.Iterable
            and self._IterableDataset_len_called is not None
            and self._num_yielded > self._IterableDataset_len_called
        ):
            warnings.warn(
                f"Length of IterableDataset {self._dataset} was reported to be {self._IterableDataset_len_called} "
                f"(when accessing len(dataloader)), but {self._num_yielded} samples have been fetched. For "
                "multiprocessing data-loading, this could be caused by not properly configuring the IterableDataset "
                "replica at each worker.",
                stacklevel=2,
            )
        return data

    def __len__(self) -> int:
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError(f"{self.__class__.__name__} cannot be pickled")


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    """Fetches and collates each batch in the calling process."""

    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        self._dataset_fetcher = fetch.create_fetcher(
            self._dataset_kind, self._dataset, self._auto_collation, self._collate_fn, self._drop_last
        )

    def _next_data(self) -> Any:
        index = self._next_index()
        return self._dataset_fetcher.fetch(index)


# Live multi-process iterators, shut down at interpreter exit so that no worker outlives us.
_live_iterators: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _shutdown_live_iterators() -> None:
    for it in list(_live_iterators):
        it._shutdown_workers()


def _describe_exit(exitcode: int | None) -> str:
    if exitcode is None:
        return "is still running"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"was killed by signal {name} ({-exitcode})"
    return f"exited with exit code {exitcode}"


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Hands batches of indices to worker processes and delivers their batches.

    Book-keeping: ``_task_info`` maps each request sent but not yet answered to its
    worker; ``_stash`` holds answers that arrived ahead of their turn; ``_rcvd_idx``
    is the next request to deliver (in order). A worker whose iterable dataset ran out,
    or that was stopped, is inactive: its unanswered requests are dropped.
    """

    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        self._shutdown = False
        # A forked child holds a copy of this object; only the creator may stop the workers.
        self._owner_pid = os.getpid()
        self._workers: list = []
        self._index_queues: list = []
        self._shm_prefix = shm.new_prefix()
        context = loader.multiprocessing_context or _default_context()
        self._worker_result_queue = context.Queue()
        self._workers_done_event = context.Event()
        try:
            for worker_id in range(self._num_workers):
                index_queue = context.Queue()
                # The main process never waits for its requests to be flushed at exit.
                index_queue.cancel_join_thread()
                w = context.Process(
                    target=worker_loop,
                    args=(
                        self._dataset_kind,
                        self._dataset,
                        index_queue,
                        self._worker_result_queue,
                        self._workers_done_event,
                        self._auto_collation,
                        self._collate_fn,
                        self._drop_last,
                        self._base_seed,
                        loader.worker_init_fn,
                        worker_id,
                        self._num_workers,
                        self._shm_prefix,
                    ),
                    daemon=True,  # never outlive the main process
                )
                w.start()
                self._index_queues.append(index_queue)
                self._workers.append(w)
        except BaseException:
            self._shutdown_workers()
            raise
        self._data_queue = self._worker_result_queue
        _live_iterators.add(self)
        self._reset(loader, first_iter=True)

    def _reset(self, loader: DataLoader, first_iter: bool = False) -> None:
        super()._reset(loader, first_iter)
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_info: dict[int, int] = {}
        self._stash: dict[int, Any] = {}
        self._workers_status = [True] * self._num_workers
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            # Persistent workers: restart every worker's epoch and drop the answers of the
            # previous one that are still in the queue (they precede the acknowledgements).
            for q in self._index_queues:
                q.put(ResumeIteration())
            pending = self._num_workers
            while pending > 0:
                task_id, data = self._get_data()
                if isinstance(task_id, ResumeIteration):
                    pending -= 1
                else:
                    shm.release(data)
        self._try_put_index()

    def _try_put_index(self) -> None:
        """Sends requests until ``prefetch_factor`` per worker are in flight or the sampler ends."""
        limit = self._prefetch_factor * self._num_workers
        while len(self._task_info) < limit:
            for _ in range(self._num_workers):
                worker_id = next(self._worker_queue_idx_cycle)
                if self._workers_status[worker_id]:
                    break
            else:
                return  # no active worker left
            try:
                index = self._next_index()
            except StopIteration:
                return
            self._index_queues[worker_id].put((self._send_idx, index))
            self._task_info[self._send_idx] = worker_id
            self._send_idx += 1

    def _try_get_data(self, timeout: float | None) -> tuple[bool, Any]:
        """One message from the workers, waiting up to ``timeout`` seconds (None: no limit).

        Raises RuntimeError when an active worker has died and nothing is left to read.
        """
        reader = self._data_queue._reader
        sentinels = {self._workers[i].sentinel: i for i in range(self._num_workers) if self._workers_status[i]}
        ready = multiprocessing.connection.wait([reader, *sentinels], timeout)
        if reader in ready:
            try:
                return True, self._data_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                return False, None
        dead = [sentinels[s] for s in ready if s in sentinels and not self._workers[sentinels[s]].is_alive()]
        if dead:
            details = []
            for worker_id in dead:
                w = self._workers[worker_id]
                details.append(f"DataLoader worker {worker_id} (pid {w.pid}) {_describe_exit(w.exitcode)}")
                self._workers_status[worker_id] = False
            self._shutdown_workers()
            raise RuntimeError(
                "; ".join(details) + ". The worker exited unexpectedly (e.g. it crashed, ran out of memory or "
                "called os._exit); see its output above for details."
            )
        return False, None

    def _get_data(self) -> tuple[Any, Any]:
        if self._timeout > 0:
            ok, data = self._try_get_data(self._timeout)
            if ok:
                return data
            raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
        while True:
            ok, data = self._try_get_data(None)
            if ok:
                return data

    def _receive(self) -> tuple[int, Any] | None:
        """Waits for one answer and books it; returns (task id, batch) or None for a stopped worker."""
        task_id, data = self._get_data()
        worker_id = self._task_info.pop(task_id, None)
        if isinstance(data, IterableDatasetStopIteration):
            self._mark_worker_stopped(data.worker_id)
            return None
        if worker_id is None:  # an answer to a request that was dropped
            shm.release(data)
            return None
        if isinstance(data, shm.SharedBatch):
            data = shm.unpack(data)
        return task_id, data

    def _mark_worker_stopped(self, worker_id: int) -> None:
        """The worker's iterable dataset has run out: it answers no further requests this epoch."""
        self._workers_status[worker_id] = False
        for task_id in [t for t, w in self._task_info.items() if w == worker_id]:
            del self._task_info[task_id]

    def _next_data(self) -> Any:
        if self._shutdown:
            raise StopIteration
        while True:
            if self._in_order:
                while (
                    self._rcvd_idx < self._send_idx
                    and self._rcvd_idx not in self._stash
                    and self._rcvd_idx not in self._task_info
                ):
                    self._rcvd_idx += 1  # dropped with its stopped worker
                if self._rcvd_idx in self._stash:
                    data = self._stash.pop(self._rcvd_idx)
                    self._rcvd_idx += 1
                    return self._process_data(data)
                if self._rcvd_idx >= self._send_idx:
                    break
            else:
                if self._stash:
                    return self._process_data(self._stash.pop(min(self._stash)))
                if not self._task_info:
                    break
            received = self._receive()
            if received is None:
                self._try_put_index()
                continue
            task_id, data = received
            self._stash[task_id] = data
        if not self._persistent_workers:
            self._shutdown_workers()
        raise StopIteration

    def _process_data(self, data: Any) -> Any:
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return data

    def _shutdown_workers(self) -> None:
        """Stops the workers and frees what they sent that was never received. Idempotent."""
        if getattr(self, "_shutdown", True) or os.getpid() != self._owner_pid:
            return
        self._shutdown = True
        try:
            self._workers_done_event.set()
            for q in self._index_queues:
                try:
                    q.put(None)
                except (OSError, ValueError):
                    pass
            for w in self._workers:
                w.join(timeout=MP_STATUS_CHECK_INTERVAL)
            for q in self._index_queues:
                q.cancel_join_thread()
                q.close()
        finally:
            for w in self._workers:
                if w.is_alive():
                    w.terminate()
                    w.join()
            # Everything still queued or written to shared memory was never received.
            self._drain_result_queue()
            shm.remove_prefix(self._shm_prefix)
            self._stash = {}
            self._task_info = {}
            _live_iterators.discard(self)

    def _drain_result_queue(self) -> None:
        q = getattr(self, "_worker_result_queue", None)
        if q is None:
            return
        try:
            while q._reader.poll():
                _, data = q.get(timeout=0.1)
                shm.release(data)
        except (queue.Empty, OSError, EOFError, ValueError):
            pass
        q.cancel_join_thread()
        q.close()

    def __del__(self) -> None:
        try:
            self._shutdown_workers()
        except Exception:
            pass
