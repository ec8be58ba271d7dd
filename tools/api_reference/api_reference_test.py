"""Every name of OneFlow's API reference (oneflow_docs.txt) exists in this oneflow, except those
in missing.txt, each with its reason. missing.txt only shrinks: a listed name that now exists
fails the test until its line is removed, so the list is always the exact gap."""

from __future__ import annotations

import importlib
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _names(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]


def _missing() -> dict[str, str]:
    out = {}
    for line in _names(HERE / "missing.txt"):
        name, _, reason = line.partition(":")
        out[name.strip()] = reason.strip()
    return out


def resolve(qualified: str):
    """The object a qualified name ("oneflow.nn.functional.relu", "oneflow.Tensor.T") names:
    the longest importable module prefix, then attributes. Raises LookupError when absent."""
    parts = qualified.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            try:
                obj = getattr(obj, attr)
            except (AttributeError, ImportError) as e:
                raise LookupError(f"{qualified}: no attribute {attr!r} ({e})") from None
        return obj
    raise LookupError(f"{qualified}: no importable module")


def _exists(name: str) -> bool:
    try:
        resolve(name)
    except LookupError:
        return False
    return True


def test_reference_names_exist():
    missing = _missing()
    absent = [n for n in _names(HERE / "oneflow_docs.txt") if n not in missing and not _exists(n)]
    assert not absent, "OneFlow API names missing (add them, or list them in missing.txt with a reason):\n" + "\n".join(
        absent
    )


def test_missing_list_is_exact():
    missing = _missing()
    documented = set(_names(HERE / "oneflow_docs.txt"))
    assert all(missing.values()), "every entry of missing.txt needs a reason after the colon"
    unknown = sorted(set(missing) - documented)
    assert not unknown, f"missing.txt lists names that are not in oneflow_docs.txt: {unknown}"
    present = sorted(n for n in missing if _exists(n))
    assert not present, f"these names exist now: remove them from missing.txt: {present}"


def test_resolve_reports_absent_names():
    assert resolve("oneflow.nn.functional.relu") is not None
    for absent in ("oneflow.no_such_name", "oneflow.nn.NoSuchLayer", "oneflow.Tensor.no_such_method"):
        try:
            resolve(absent)
        except LookupError:
            continue
        raise AssertionError(f"{absent} resolved")
