"""The machine a benchmark ran on, for its header line: the CPU model and the instruction set
oneflow's CPU kernels run with (the widest the CPU has, capped by ONEFLOW_VEC_ISA).

    >>> describe()
    'AMD EPYC 9B45, kernels avx2 (ONEFLOW_VEC_ISA=avx2)'
"""

from __future__ import annotations

import os
import platform

_AVX512 = {"avx512f", "avx512bw", "avx512vl", "avx512dq"}
_AVX2 = {"avx2", "fma", "f16c"}


def _cpuinfo() -> dict[str, str]:
    """The first processor's fields of /proc/cpuinfo (empty where there is none)."""
    fields: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if not line.strip():
                    break
                key, _, value = line.partition(":")
                fields[key.strip()] = value.strip()
    except OSError:
        pass
    return fields


def cpu_model() -> str:
    """The CPU's model name, e.g. 'AMD EPYC 7B13'."""
    return _cpuinfo().get("model name") or platform.processor() or platform.machine() or "unknown CPU"


def kernel_isa(flags: set[str] | None = None, cap: str | None = None) -> str:
    """'avx512', 'avx2' or 'baseline': the set the hand-vectorized CPU kernels run with.

    The same rule as KernelIsa() in ops/cpu/isa.h (keep the two in sync): AVX-512 F/BW/VL/DQ,
    else AVX2 with FMA and F16C, else baseline; ONEFLOW_VEC_ISA=avx2 or =baseline caps it.
    """
    if flags is None:
        flags = set(_cpuinfo().get("flags", "").split())
    if cap is None:
        cap = os.environ.get("ONEFLOW_VEC_ISA")
    best = "avx512" if _AVX512 <= flags else "avx2" if _AVX2 <= flags else "baseline"
    if cap == "baseline" or (cap == "avx2" and best == "avx512"):
        return cap
    return best


def describe() -> str:
    """'<CPU model>, kernels <isa>', with the ONEFLOW_VEC_ISA pin when one is set."""
    cap = os.environ.get("ONEFLOW_VEC_ISA")
    pin = f" (ONEFLOW_VEC_ISA={cap})" if cap else ""
    return f"{cpu_model()}, kernels {kernel_isa()}{pin}"
