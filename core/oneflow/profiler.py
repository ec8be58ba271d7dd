"""``oneflow.profiler``: where eager time goes, per op.

A small counterpart of ``torch.profiler`` for CPU kernels::

    with flow.profiler.profile() as prof:
        model(x).sum().backward()
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=10))

While a profile is active, every kernel the dispatcher runs is timed; each op name gets its
call count, total time (its kernel, including the ops that kernel ran itself) and self time
(excluding them). Time outside kernels (Python, argument parsing, autograd bookkeeping) is not
attributed to any op; :attr:`profile.wall_time_us` is the elapsed time of the whole block, so
the share the kernels account for is ``sum of self times / wall time``. Times are in
microseconds, like torch's. Profiles do not nest: starting one while another is active raises.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from oneflow import _C

__all__ = ["FunctionEventAvg", "ProfilerActivity", "profile"]


class ProfilerActivity:
    """Accepted for torch.profiler compatibility; oneflow profiles CPU kernels."""

    CPU = "CPU"


@dataclass
class FunctionEventAvg:
    """One op's totals over a profile (times in microseconds)."""

    key: str
    count: int
    cpu_time_total: float
    self_cpu_time_total: float

    @property
    def cpu_time(self) -> float:
        """Average time per call."""
        return self.cpu_time_total / self.count if self.count else 0.0


_SORT_KEYS = ("self_cpu_time_total", "cpu_time_total", "count", "cpu_time")


class EventList(list):
    """The rows of :meth:`profile.key_averages`, with :meth:`table`."""

    def table(self, sort_by: str = "self_cpu_time_total", row_limit: int = 100) -> str:
        if sort_by not in _SORT_KEYS:
            raise ValueError(f"table(): sort_by must be one of {', '.join(_SORT_KEYS)}, got {sort_by!r}")
        rows = sorted(self, key=lambda e: getattr(e, sort_by), reverse=True)
        if row_limit >= 0:
            rows = rows[:row_limit]
        self_total = sum(e.self_cpu_time_total for e in self) or 1.0
        width = max([len("Name")] + [len(e.key) for e in rows])
        head = (f"{'Name':<{width}}  {'Self CPU %':>10}  {'Self CPU':>12}  {'CPU total':>12}  {'CPU avg':>10}  "
                f"{'# Calls':>8}")
        lines = [head, "-" * len(head)]
        for e in rows:
            lines.append(
                f"{e.key:<{width}}  {100.0 * e.self_cpu_time_total / self_total:>9.2f}%  "
                f"{_fmt(e.self_cpu_time_total):>12}  {_fmt(e.cpu_time_total):>12}  {_fmt(e.cpu_time):>10}  "
                f"{e.count:>8}"
            )
        lines.append("-" * len(head))
        lines.append(f"Self CPU time total: {_fmt(sum(e.self_cpu_time_total for e in self))}")
        return "\n".join(lines)


def _fmt(us: float) -> str:
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


class profile:
    """Context manager collecting per-op kernel times (see the module docstring).

    ``activities`` may name :attr:`ProfilerActivity.CPU` only; ``record_shapes`` and the
    other torch.profiler options are not supported and raise when set.
    """

    def __init__(self, activities=None, *, record_shapes: bool = False, profile_memory: bool = False,
                 with_stack: bool = False):
        for a in activities or ():
            if a != ProfilerActivity.CPU:
                raise ValueError(f"profile(): oneflow profiles CPU kernels only, got activity {a!r}")
        for name, value in (("record_shapes", record_shapes), ("profile_memory", profile_memory),
                            ("with_stack", with_stack)):
            if value:
                raise NotImplementedError(f"profile(): {name}=True is not supported")
        self._rows: list[FunctionEventAvg] | None = None
        self.wall_time_us = 0.0
        self._start = 0.0

    def __enter__(self) -> profile:
        if _C._profiler_enabled():
            raise RuntimeError("profile(): another profile is already active (profiles do not nest)")
        _C._profiler_reset()
        self._start = time.perf_counter()
        _C._profiler_set_enabled(True)
        return self

    def __exit__(self, *exc) -> None:
        _C._profiler_set_enabled(False)
        self.wall_time_us = (time.perf_counter() - self._start) * 1e6
        self._rows = [FunctionEventAvg(name, calls, total / 1e3, self_ns / 1e3)
                      for name, calls, total, self_ns in _C._profiler_table()]
        _C._profiler_reset()

    def key_averages(self) -> EventList:
        if self._rows is None:
            raise RuntimeError("key_averages(): the profile has not finished (leave the with block first)")
        return EventList(self._rows)
