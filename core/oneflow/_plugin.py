"""Version checks between oneflow and the packages built on it.

distributed, graph, libai, flowvision and serving ship as separate wheels. Each
declares the oneflow versions it works with (the same range as the
Requires-Dist of its wheel) and calls :func:`check_oneflow_requirement` when
imported, so a mismatch is an ImportError that says what to install instead of
an AttributeError deep inside.
"""

from __future__ import annotations

import operator
import re

from oneflow._version import __version__

_OPS = {
    ">=": operator.ge,
    "<=": operator.le,
    "==": operator.eq,
    "!=": operator.ne,
    ">": operator.gt,
    "<": operator.lt,
}


def _parse(version: str) -> tuple[int, ...]:
    m = re.match(r"^(\d+(?:\.\d+)*)", version.strip())
    if not m:
        raise ValueError(f"cannot parse version {version!r}")
    return tuple(int(p) for p in m.group(1).split("."))


def _pad(a: tuple[int, ...], b: tuple[int, ...]):
    n = max(len(a), len(b))
    return a + (0,) * (n - len(a)), b + (0,) * (n - len(b))


def version_satisfies(version: str, requirement: str) -> bool:
    """True when ``version`` meets every clause of ``requirement`` (e.g. ``">=0.1.0,<0.2.0"``)."""
    for clause in filter(None, (c.strip() for c in requirement.split(","))):
        m = re.match(r"^(>=|<=|==|!=|>|<)\s*(.+)$", clause)
        if not m:
            raise ValueError(f"unsupported version clause {clause!r} in {requirement!r}")
        have, want = _pad(_parse(version), _parse(m.group(2)))
        if not _OPS[m.group(1)](have, want):
            return False
    return True


def check_oneflow_requirement(package: str, requirement: str, installed: str = __version__) -> None:
    """Raises ImportError unless the installed oneflow satisfies ``requirement``."""
    if not version_satisfies(installed, requirement):
        raise ImportError(
            f"{package} requires oneflow{requirement}, but oneflow {installed} is installed. "
            f"Install a matching oneflow wheel, e.g. pip install 'oneflow{requirement}'."
        )
