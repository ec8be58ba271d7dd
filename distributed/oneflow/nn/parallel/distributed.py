"""``DistributedDataParallel``: data-parallel training over a ``oneflow.distributed`` process group.

Every rank holds a replica of the module and feeds it its share of each batch; gradients are
averaged across the ranks during backward, so the optimizers of all ranks take the same step.

How (as torch's DDP, on CPU over gloo):

- At construction every rank checks that all hold the same parameters (shapes, dtypes), rank 0's
  parameters and buffers are broadcast to the others, and the parameters that require grad are
  assigned to buckets: in reverse registration order (about the order backward produces their
  gradients), one dtype per bucket, the first at most 1 MiB and the others about
  ``bucket_cap_mb``. After the first synchronized backward the buckets are rebuilt once in the
  order the gradients really arrived (rank 0's order, so that every rank buckets alike).
- ``forward`` broadcasts rank 0's buffers (``broadcast_buffers``), runs the module, and, when
  grad is enabled outside :meth:`~DistributedDataParallel.no_sync`, arms the reducer for the
  next backward; with ``find_unused_parameters`` it walks the output's autograd graph for the
  parameters the output does not depend on.
- During backward a tensor hook on each parameter fires when the parameter's gradient is
  known and copies the gradient its ``.grad`` will hold (the old ``.grad`` plus the new
  contribution) into its slot of its bucket. When a bucket is full it is launched, buckets in
  bucket order (so every rank issues the same collectives in the same order): a worker thread
  divides it by the world size and all-reduces it while backward goes on (the autograd engine
  runs without the GIL and the collectives release it). A final callback of the backward pass
  (``oneflow.autograd._queue_callback``) waits for the worker and writes the averaged
  gradients into ``.grad`` before ``backward()`` returns, so the optimizer step sees them.
- Parameters the backward does not reach: with ``find_unused_parameters=True`` they are marked
  ready at once (their slot holds their current ``.grad``, or zeros); a parameter that no rank
  used keeps its ``.grad`` (None stays None). Without it their bucket never completes and the
  next forward raises, as torch does.

Differences from torch: CPU tensors with the gloo backend only (no ``device_ids``), no
``register_comm_hook``/``join``, and ``gradient_as_bucket_view=True`` gives ``.grad`` tensors that
are views of a bucket freshly allocated for each synchronized step (the autograd engine
accumulates out of place, so there is no memory to save by reusing one).
"""

from __future__ import annotations

import contextlib
import queue
import threading
import weakref
from collections.abc import Iterator
from typing import Any

import oneflow as flow
import oneflow.distributed as dist
from oneflow.autograd import _backward_running, _queue_callback
from oneflow.nn.modules.module import Module

__all__ = ["DistributedDataParallel"]

_MB = 1024 * 1024
_FIRST_BUCKET_BYTES = 1 * _MB  # small, so that the first all-reduce starts early in backward
_BROADCAST_BUCKET_BYTES = 250 * _MB  # coalescing of the parameter/buffer broadcasts


def _find_tensors(obj: Any) -> Iterator[flow.Tensor]:
    """The tensors in a forward's output (nested lists, tuples, dicts)."""
    if isinstance(obj, flow.Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            yield from _find_tensors(item)
    elif isinstance(obj, dict):
        for item in obj.values():
            yield from _find_tensors(item)


def _broadcast_coalesced(tensors: list, src: int, group, is_src: bool) -> None:
    """Broadcasts ``tensors`` from global rank ``src``, packed into few flat messages per dtype."""
    by_dtype: dict = {}
    for t in tensors:
        by_dtype.setdefault(t.dtype, []).append(t)
    for same in by_dtype.values():
        chunk: list = []
        nbytes = 0
        for t in same + [None]:
            if t is not None and (not chunk or nbytes + t.numel() * t.element_size() <= _BROADCAST_BUCKET_BYTES):
                chunk.append(t)
                nbytes += t.numel() * t.element_size()
                continue
            with flow.no_grad():
                flat = flow.cat([c.detach().reshape(-1) for c in chunk])
                dist.broadcast(flat, src, group)
                if not is_src:
                    offset = 0
                    for c in chunk:
                        c.copy_(flat[offset:offset + c.numel()].view(c.shape))
                        offset += c.numel()
            chunk = [t] if t is not None else []
            nbytes = t.numel() * t.element_size() if t is not None else 0


class _Job:
    """One function run by the worker; ``wait()`` re-raises what it raised."""

    def __init__(self, fn) -> None:
        self.fn = fn
        self.done = threading.Event()
        self.error: BaseException | None = None

    def wait(self) -> None:
        self.done.wait()
        if self.error is not None:
            raise self.error


def _serve(jobs: queue.SimpleQueue) -> None:
    """The worker thread: runs jobs in the order queued until it gets None."""
    while True:
        job = jobs.get()
        if job is None:
            return
        try:
            job.fn()
        except BaseException as e:  # handed to the waiting thread
            job.error = e
        finally:
            job.done.set()


class _Bucket:
    """Parameters whose gradients are all-reduced together, packed in one flat tensor."""

    def __init__(self, index: int, params: list, dtype) -> None:
        self.index = index
        self.params = params  # indices into DistributedDataParallel._params
        self.dtype = dtype
        self.numel = 0
        self.flat: flow.Tensor | None = None
        self.pending = len(params)


class DistributedDataParallel(Module):
    r"""Data-parallel training of ``module``: one replica per process, gradients averaged over
    the processes of ``process_group`` during backward.

    Each rank runs the wrapped module on its own share of the data (see
    :class:`oneflow.utils.data.DistributedSampler`); ``backward()`` returns with every
    parameter's ``.grad`` equal to the average over the ranks, so the same optimizer step keeps
    the replicas identical. Gradients are all-reduced in buckets of about ``bucket_cap_mb``
    megabytes, each launched as soon as its gradients are known, so communication overlaps the
    rest of backward. Call :func:`oneflow.distributed.init_process_group` first.

    Args:
        module (Module): the module to replicate; its parameters and buffers are overwritten
            with rank 0's at construction.
        device_ids (list, optional): must be None for CPU modules.
        output_device (optional): must be None for CPU modules.
        dim (int, optional): accepted for compatibility (the scatter dimension of multi-device
            modules, which this backend does not have).
        broadcast_buffers (bool, optional): broadcast rank 0's buffers (e.g. BatchNorm running
            statistics) to the other ranks at the start of each forward. Default: True.
        init_sync (bool, optional): broadcast rank 0's parameters and buffers at construction.
            Default: True.
        process_group (ProcessGroup, optional): the ranks to average over. Default: the world.
        bucket_cap_mb (float, optional): the bucket size, in MiB. Default: 25.
        find_unused_parameters (bool, optional): allow parameters that the loss does not depend
            on; found by walking the autograd graph of the forward's output. Default: False.
        check_reduction (bool, optional): deprecated, ignored.
        gradient_as_bucket_view (bool, optional): make each ``.grad`` a view of its bucket
            instead of a separate tensor. Default: False.
        static_graph (bool, optional): accepted for compatibility: the reducer needs no hint.

    Example::

        >>> dist.init_process_group("gloo")            # under oneflow.distributed.launch
        >>> model = flow.nn.Linear(10, 1)
        >>> ddp = flow.nn.parallel.DistributedDataParallel(model)
        >>> opt = flow.optim.SGD(ddp.parameters(), lr=0.1)
        >>> loss = ddp(x).square().mean()              # x: this rank's share of the batch
        >>> loss.backward()                            # .grad: the average over the ranks
        >>> opt.step()
    """

    def __init__(
        self,
        module: Module,
        device_ids: list | None = None,
        output_device=None,
        dim: int = 0,
        broadcast_buffers: bool = True,
        init_sync: bool = True,
        process_group: dist.ProcessGroup | None = None,
        bucket_cap_mb: float | None = 25,
        find_unused_parameters: bool = False,
        check_reduction: bool = False,
        gradient_as_bucket_view: bool = False,
        static_graph: bool = False,
    ) -> None:
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(f"DistributedDataParallel: module must be a oneflow.nn.Module, got {type(module).__name__}")
        if not dist.is_initialized():
            raise RuntimeError(
                "DistributedDataParallel: the default process group has not been initialized; call "
                "oneflow.distributed.init_process_group first"
            )
        params = []
        for p in module.parameters():
            if p.requires_grad and all(p is not q for q in params):
                params.append(p)
        if not params:
            raise RuntimeError(
                "DistributedDataParallel is not needed when a module doesn't have any parameter that requires a "
                "gradient."
            )
        devices = {str(p.device) for p in module.parameters()} | {str(b.device) for b in module.buffers()}
        if (device_ids is not None or output_device is not None) and devices <= {"cpu"}:
            raise ValueError(
                "DistributedDataParallel device_ids and output_device arguments only work with GPU modules; "
                f"this module's parameters are on {sorted(devices)}: pass device_ids=None and output_device=None"
            )
        if bucket_cap_mb is None:
            bucket_cap_mb = 25
        if not bucket_cap_mb > 0:
            raise ValueError(f"DistributedDataParallel: bucket_cap_mb must be positive, got {bucket_cap_mb}")

        self.module = module
        self.device_ids = device_ids
        self.output_device = output_device
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.process_group = process_group
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.bucket_bytes_cap = int(bucket_cap_mb * _MB)
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.world_size = dist.get_world_size(process_group)
        self._rank = dist.get_rank(process_group)
        # The authoritative rank: rank 0 of the group, as a global rank.
        self._src = 0 if process_group is None else dist.get_global_rank(process_group, 0)
        # Debugging aid (tests): a list here receives ("grad", i), ("launch", b),
        # ("allreduce_start", b), ("allreduce_done", b) and ("finalize",) events.
        self._trace: list | None = None

        self._params = params
        self._names = {id(p): name for name, p in module.named_parameters()}
        self._verify_same_parameters()
        if init_sync and self.world_size > 1:
            tensors = list(module.parameters()) + list(module.buffers())
            _broadcast_coalesced(tensors, self._src, process_group, self._rank == 0)

        order = list(reversed(range(len(params))))
        self._assign_buckets(order)
        self._rebuilt = False  # buckets rebuilt in the observed gradient order (once)
        self._rebuild_order: list | None = None

        # The worker thread that runs the all-reduces; stopped when this object is collected.
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._worker: threading.Thread | None = None
        weakref.finalize(self, self._jobs.put, None)

        # A hook on each parameter; it does nothing once this object is gone.
        ref = weakref.ref(self)
        self._hook_handles = [p.register_hook(self._make_hook(ref, i)) for i, p in enumerate(params)]
        weakref.finalize(self, DistributedDataParallel._remove_hooks, self._hook_handles)

        self._reset_iteration()
        self._armed = False  # hooks act only after a forward with grad sync
        self._unused: list = []  # parameters the last forward's output does not depend on
        self._unfinished: str | None = None  # why the last reduction did not finish

    # ---- construction helpers ------------------------------------------------------------

    def _verify_same_parameters(self) -> None:
        """Every rank must hold the same parameters: compared with rank 0's, on every rank."""
        mine = [(tuple(p.shape), str(p.dtype)) for p in self.module.parameters()]
        everyone = [None] * self.world_size
        dist.all_gather_object(everyone, mine, group=self.process_group)
        ref = everyone[0]
        for r, theirs in enumerate(everyone):
            if theirs == ref:
                continue
            if len(theirs) != len(ref):
                detail = f"rank {r} has {len(theirs)} parameters, while rank 0 has {len(ref)}"
            else:
                k = next(k for k in range(len(ref)) if theirs[k] != ref[k])
                detail = (f"parameter {k} has shape {list(theirs[k][0])} and dtype {theirs[k][1]} on rank {r}, but "
                          f"shape {list(ref[k][0])} and dtype {ref[k][1]} on rank 0")
            raise RuntimeError(f"DistributedDataParallel expects the same model on every rank, but {detail}")

    def _assign_buckets(self, order: list) -> None:
        """Buckets of parameters (indices into _params) in ``order``: one dtype per bucket, the
        first of each dtype closed at 1 MiB, the others at bucket_cap_mb; launched in the order
        they are completed when gradients arrive in ``order``."""
        closed: list = []
        open_: dict = {}  # dtype -> (indices, bytes)
        first_done: set = set()
        for i in order:
            p = self._params[i]
            key = p.dtype
            indices, nbytes = open_.get(key, ([], 0))
            indices.append(i)
            nbytes += p.numel() * p.element_size()
            limit = self.bucket_bytes_cap if key in first_done else min(_FIRST_BUCKET_BYTES, self.bucket_bytes_cap)
            if nbytes >= limit:
                closed.append((indices, key))
                open_.pop(key, None)
                first_done.add(key)
            else:
                open_[key] = (indices, nbytes)
        closed.extend((indices, key) for key, (indices, _) in open_.items())
        position = {i: k for k, i in enumerate(order)}
        closed.sort(key=lambda b: position[b[0][-1]])
        self._buckets = [_Bucket(b, indices, key) for b, (indices, key) in enumerate(closed)]
        # parameter index -> (bucket, offset, numel)
        self._slots: dict = {}
        for bucket in self._buckets:
            offset = 0
            for i in bucket.params:
                n = self._params[i].numel()
                self._slots[i] = (bucket, offset, n)
                offset += n
            bucket.numel = offset

    @staticmethod
    def _make_hook(ref, index: int):
        def hook(grad):
            ddp = ref()
            if ddp is not None:
                ddp._on_grad(index, grad)
            return None

        return hook

    @staticmethod
    def _remove_hooks(handles: list) -> None:
        for h in handles:
            h.remove()

    # ---- the reducer ---------------------------------------------------------------------

    def _reset_iteration(self) -> None:
        self._marked = [False] * len(self._params)
        self._used = [False] * len(self._params)
        self._ready_order: list = []
        for bucket in self._buckets:
            bucket.pending = len(bucket.params)
            if bucket.flat is None or self.gradient_as_bucket_view:
                bucket.flat = flow.empty(bucket.numel, dtype=bucket.dtype, device=self._params[bucket.params[0]].device)
        self._next_bucket = 0
        self._launched: list = []  # jobs of this backward, in launch order
        self._used_job: tuple | None = None  # (job, tensor) of the used-parameter count
        self._started = False  # a hook fired in this backward

    def _event(self, *event) -> None:
        if self._trace is not None:
            self._trace.append(event)

    def _on_grad(self, index: int, grad: flow.Tensor) -> None:
        """Parameter ``index``'s hook: its gradient of this backward pass is ``grad``."""
        if not self._armed or not _backward_running():
            return  # no_sync, a second backward of one forward, or autograd.grad: no reduction
        if not self._started:
            self._started = True
            _queue_callback(self._finalize)
            for i in self._unused:  # known from the forward's graph: ready at once
                self._mark_ready(i, None)
        self._event("grad", index)
        if self._marked[index]:
            name = self._names.get(id(self._params[index]), str(index))
            raise RuntimeError(
                f"DistributedDataParallel: parameter '{name}' was marked ready twice in one backward pass: its "
                "gradient arrived after it was found unused, or from a second backward of the same forward "
                "(e.g. reentrant backward); each parameter may get its gradient once per synchronized iteration"
            )
        self._mark_ready(index, grad)

    def _mark_ready(self, index: int, grad: flow.Tensor | None) -> None:
        """Copies parameter ``index``'s gradient-to-be into its bucket slot (the incoming
        ``grad`` plus its current ``.grad``; for an unused parameter its ``.grad`` or zeros)."""
        bucket, offset, n = self._slots[index]
        p = self._params[index]
        slot = bucket.flat[offset:offset + n]
        with flow.no_grad():
            if grad is not None:
                slot.copy_(grad.reshape(-1))
                if p.grad is not None:
                    slot.add_(p.grad.reshape(-1))
            elif p.grad is not None:
                slot.copy_(p.grad.reshape(-1))
            else:
                slot.zero_()
        self._marked[index] = True
        self._used[index] = grad is not None
        if grad is not None:
            self._ready_order.append(index)
        bucket.pending -= 1
        if bucket.pending == 0:
            self._launch_ready()

    def _launch_ready(self) -> None:
        """Hands the full buckets to the worker, in bucket order."""
        while self._next_bucket < len(self._buckets) and self._buckets[self._next_bucket].pending == 0:
            bucket = self._buckets[self._next_bucket]
            self._next_bucket += 1
            self._event("launch", bucket.index)
            self._launched.append(self._submit(self._all_reduce_fn(bucket.flat, bucket.index)))
        if self._next_bucket == len(self._buckets) and self.find_unused_parameters:
            # Which parameters some rank used: decides whether an unused one gets a .grad.
            used = flow.tensor([1 if u else 0 for u in self._used], dtype=flow.int32)
            self._used_job = (self._submit(self._all_reduce_fn(used, None)), used)

    def _all_reduce_fn(self, tensor: flow.Tensor, index: int | None):
        group, world, trace = self.process_group, self.world_size, self._trace

        def run() -> None:
            if trace is not None and index is not None:
                trace.append(("allreduce_start", index))
            with flow.no_grad():
                if index is not None:
                    tensor.div_(world)
                dist.all_reduce(tensor, dist.ReduceOp.SUM, group)
            if trace is not None and index is not None:
                trace.append(("allreduce_done", index))

        return run

    def _submit(self, fn) -> _Job:
        if self._worker is None:
            self._worker = threading.Thread(target=_serve, args=(self._jobs,), name="ddp-allreduce", daemon=True)
            self._worker.start()
        job = _Job(fn)
        self._jobs.put(job)
        return job

    def _wait_all(self) -> None:
        """Waits for every launched job; re-raises the first error."""
        error = None
        jobs = list(self._launched) + ([self._used_job[0]] if self._used_job else [])
        for job in jobs:
            try:
                job.wait()
            except BaseException as e:
                error = error or e
        if error is not None:
            raise error

    def _finalize(self) -> None:
        """The backward pass's final callback: waits for the all-reduces, writes the averages."""
        self._armed = False
        if self.find_unused_parameters:  # not reached by the loss (e.g. an output left out of it)
            for i in range(len(self._params)):
                if not self._marked[i]:
                    self._mark_ready(i, None)
        try:
            self._wait_all()
        except BaseException:
            self._unfinished = "the previous iteration's gradient all-reduce failed"
            raise
        if self._next_bucket < len(self._buckets):
            missing = [self._names.get(id(self._params[i]), str(i)) for i in range(len(self._params))
                       if not self._marked[i]]
            self._unfinished = f"parameters that did not receive a gradient: {', '.join(missing)}"
            return
        used = self._used_job[1].tolist() if self._used_job else None
        for bucket in self._buckets:
            for i in bucket.params:
                p = self._params[i]
                if used is not None and used[i] == 0 and p.grad is None:
                    continue  # no rank used it: no gradient, as without DDP
                _, offset, n = self._slots[i]
                g = bucket.flat[offset:offset + n].view(p.shape)
                p.grad = g if self.gradient_as_bucket_view else g.clone()
        if not self._rebuilt and self._rebuild_order is None:
            seen = set(self._ready_order)
            self._rebuild_order = self._ready_order + [i for i in reversed(range(len(self._params))) if i not in seen]
        self._event("finalize")

    def _rebuild_buckets(self) -> None:
        """Once, after the first synchronized backward: buckets in the order the gradients
        arrived on rank 0 (every rank takes rank 0's order)."""
        order = [self._rebuild_order]
        if self.world_size > 1:
            dist.broadcast_object_list(order, self._src, self.process_group)
        self._rebuilt = True
        self._rebuild_order = None
        if order[0] != list(reversed(range(len(self._params)))):
            self._assign_buckets(order[0])

    def _check_previous_reduction(self) -> None:
        if self._armed and self._started:  # backward raised before its final callback
            with contextlib.suppress(BaseException):
                self._wait_all()
            self._armed = False
            self._unfinished = "the previous backward pass raised before the gradients were reduced"
        if self._unfinished is not None:
            why, self._unfinished = self._unfinished, None
            self._reset_iteration()
            raise RuntimeError(
                "DistributedDataParallel: expected to have finished reduction in the prior iteration before "
                f"starting a new one ({why}). This error indicates that your module has parameters that were not "
                "used in producing loss. You can enable unused parameter detection by passing the keyword "
                "argument `find_unused_parameters=True` to `oneflow.nn.parallel.DistributedDataParallel`, and by "
                "making sure all `forward` function outputs participate in calculating loss."
            )

    def _unused_parameters(self, output: Any) -> list:
        """The parameters (indices) that ``output``'s autograd graph does not reach."""
        position = {id(p): i for i, p in enumerate(self._params)}
        reached = set()
        seen: dict = {}  # id -> node, kept alive so that ids stay unique
        stack = []
        for t in _find_tensors(output):
            if t.grad_fn is not None:
                stack.append(t.grad_fn)
            elif t.requires_grad and id(t) in position:
                reached.add(position[id(t)])
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen[id(node)] = node
            if node.name() == "AccumulateGrad":
                v = node.variable
                if v is not None and id(v) in position:
                    reached.add(position[id(v)])
                continue
            stack.extend(nxt for nxt, _ in node.next_functions if nxt is not None)
        return [i for i in range(len(self._params)) if i not in reached]

    def _sync_buffers(self) -> None:
        buffers = list(self.module.buffers())
        if buffers and self.world_size > 1:
            _broadcast_coalesced(buffers, self._src, self.process_group, self._rank == 0)

    # ---- the public interface --------------------------------------------------------------

    def forward(self, *inputs, **kwargs):
        """Runs the wrapped module (after broadcasting rank 0's buffers when
        ``broadcast_buffers``) and prepares the gradient reduction of the next backward."""
        self._check_previous_reduction()
        if self._rebuild_order is not None and self.require_backward_grad_sync and flow.is_grad_enabled():
            self._rebuild_buckets()
        if self.require_forward_param_sync and self.broadcast_buffers:
            self._sync_buffers()
        output = self.module(*inputs, **kwargs)
        if flow.is_grad_enabled() and self.require_backward_grad_sync:
            self.require_forward_param_sync = True
            self._reset_iteration()
            self._unused = self._unused_parameters(output) if self.find_unused_parameters else []
            self._armed = True
        else:
            self.require_forward_param_sync = False
            self._armed = False
        return output

    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """A context manager in which backward passes accumulate gradients locally, without
        all-reduce; the first forward/backward after it averages the accumulated gradients.

        Example::

            >>> with ddp.no_sync():
            ...     for x in micro_batches[:-1]:
            ...         ddp(x).sum().backward()   # local accumulation
            >>> ddp(micro_batches[-1]).sum().backward()   # all-reduce of the sum
        """
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old
