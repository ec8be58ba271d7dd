"""How much of PyTorch's public API `oneflow` has, name by name, at the same path.

    ./tools/bazel run //tools:api_coverage                # per-namespace totals
    ./tools/bazel run //tools:api_coverage -- --missing   # and every missing name
    ./tools/bazel run //tools:api_coverage -- --markdown  # the totals as README's table

The names come from the installed torch: a module's `__all__` when it has one, else its `dir()`
(only the classes and functions it defines or binds from torch's C extension, not what it merely
imports); `torch.Tensor` is `dir(torch.Tensor)`. Names starting with "_" (dunders included) are
not public. A name counts as present when `oneflow` has the same name at the same path
(`torch.nn.functional.gelu` -> `oneflow.nn.functional.gelu`); whether it behaves as torch's is
the parity tests' job, not this tool's. Names deliberately left out are in excluded.txt, each
pattern with its reason.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import re
import types
from pathlib import Path

EXCLUDED_FILE = Path(__file__).resolve().parent / "excluded.txt"

# The namespaces measured, in the order printed. Modules without `__all__` are read with dir().
MODULES = [
    "torch",
    "torch.nn",
    "torch.nn.functional",
    "torch.nn.init",
    "torch.nn.utils",
    "torch.nn.utils.parametrize",
    "torch.nn.utils.rnn",
    "torch.nn.utils.weight_norm",
    "torch.nn.utils.spectral_norm",
    "torch.optim",
    "torch.optim.lr_scheduler",
    "torch.optim.swa_utils",
    "torch.linalg",
    "torch.special",
    "torch.fft",
    "torch.autograd",
    "torch.autograd.functional",
    "torch.utils.data",
]
TENSOR = "torch.Tensor"
DISTRIBUTIONS = "torch.distributions"
# Only the distributions ordinary training code uses (issue 16), not all of torch.distributions.
COMMON_DISTRIBUTIONS = [
    "Bernoulli",
    "Beta",
    "Categorical",
    "Dirichlet",
    "Gamma",
    "MultivariateNormal",
    "Normal",
    "Uniform",
    "kl_divergence",
]
NAMESPACES = MODULES[:1] + [TENSOR] + MODULES[1:] + [DISTRIBUTIONS]

# A module read with dir() also shows what it imports; these modules' objects are never its API.
_FOREIGN_MODULES = ("torch._jit_internal", "torch.overrides", "typing", "collections", "builtins")


@dataclasses.dataclass
class Namespace:
    """One namespace's names, split into present in oneflow, missing, and excluded."""

    name: str
    have: list[str]
    missing: list[str]
    excluded: list[str]

    @property
    def total(self) -> int:
        """The names measured: present plus missing (excluded names are not counted)."""
        return len(self.have) + len(self.missing)

    @property
    def percent(self) -> float:
        return 100.0 * len(self.have) / self.total if self.total else 100.0


def kind(obj: object) -> str:
    """'class', 'function', 'module' or 'attribute' (dtypes, constants, properties)."""
    if isinstance(obj, types.ModuleType):
        return "module"
    if isinstance(obj, type):
        return "class"
    if callable(obj) and not isinstance(obj, (property, types.GetSetDescriptorType)):
        return "function"
    return "attribute"


def _defined_here(module: types.ModuleType, obj: object) -> bool:
    if isinstance(obj, types.ModuleType) or not callable(obj):
        return False  # submodules are namespaces of their own; plain values are docs or flags
    owner = getattr(obj, "__module__", None) or ""
    return owner.startswith("torch") and not owner.startswith(_FOREIGN_MODULES)


def torch_names(namespace: str) -> dict[str, str]:
    """The public names of one torch namespace, each with its kind."""
    if namespace == TENSOR:
        import torch

        return {n: kind(getattr(torch.Tensor, n)) for n in dir(torch.Tensor) if not n.startswith("_")}
    module = importlib.import_module(namespace)
    if namespace == DISTRIBUTIONS:
        return {n: kind(getattr(module, n)) for n in COMMON_DISTRIBUTIONS}
    exported = getattr(module, "__all__", None)
    if exported is not None:
        names = [n for n in exported if not n.startswith("_") and hasattr(module, n)]
    else:
        names = [n for n in dir(module) if not n.startswith("_") and _defined_here(module, getattr(module, n))]
    return {n: kind(getattr(module, n)) for n in sorted(set(names))}


def oneflow_names(namespace: str, wanted: list[str]) -> set[str]:
    """The names of `wanted` that oneflow has at the namespace's oneflow path."""
    flow_path = "oneflow" + namespace[len("torch") :]
    if namespace == TENSOR:
        import oneflow

        instance = oneflow.tensor([1.0])
        # Some attributes are set per tensor rather than on the class; dir() reads them unevaluated.
        return {n for n in wanted if hasattr(oneflow.Tensor, n) or n in dir(instance)}
    try:
        module = importlib.import_module(flow_path)
    except Exception:  # an absent or broken oneflow module: none of its names are there
        return set()
    present = set()
    for n in wanted:
        try:
            getattr(module, n)
        except Exception:
            continue
        present.add(n)
    return present


def read_exclusions(path: Path = EXCLUDED_FILE) -> dict[str, str]:
    """excluded.txt as {pattern: reason}; a pattern is a case-sensitive glob on qualified names
    (`torch.Tensor.is_mkldnn`, `torch.quantize_*`) whose `*` does not cross a dot. Blank lines and
    '#' lines are skipped."""
    out = {}
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        pattern, sep, reason = line.partition(": ")
        if not sep or not reason.strip():
            raise ValueError(f"{path.name}:{number}: expected 'pattern: reason', got {raw!r}")
        out[pattern.strip()] = reason.strip()
    return out


def _glob_regex(pattern: str) -> re.Pattern:
    # Like fnmatch, but "*" and "?" stay inside one path component: `torch.*Type` must not reach
    # into torch.nn.functional.
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            out.append("[^.]*")
        elif c == "?":
            out.append("[^.]")
        elif c == "[" and "]" in pattern[i:]:
            end = pattern.index("]", i)
            out.append(pattern[i : end + 1])
            i = end
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out) + r"\Z")


def is_excluded(qualified: str, patterns: dict[str, str]) -> bool:
    """Whether a qualified name matches any exclusion pattern."""
    return any(_glob_regex(p).match(qualified) for p in patterns)


def coverage(exclusions: dict[str, str] | None = None) -> list[Namespace]:
    """Every measured namespace of torch against oneflow, with `exclusions` (pattern -> reason;
    default excluded.txt) left out of the counts."""
    if exclusions is None:
        exclusions = read_exclusions()
    report = []
    for namespace in NAMESPACES:
        names = sorted(torch_names(namespace))
        excluded = [n for n in names if is_excluded(f"{namespace}.{n}", exclusions)]
        measured = [n for n in names if n not in set(excluded)]
        present = oneflow_names(namespace, measured)
        report.append(
            Namespace(
                name=namespace,
                have=[n for n in measured if n in present],
                missing=[n for n in measured if n not in present],
                excluded=excluded,
            )
        )
    return report


def all_torch_names() -> list[str]:
    """Every qualified public name measured, excluded ones included."""
    return [f"{ns}.{n}" for ns in NAMESPACES for n in torch_names(ns)]


def format_table(report: list[Namespace], markdown: bool = False) -> str:
    have = sum(len(ns.have) for ns in report)
    total = sum(ns.total for ns in report)
    rows = [(ns.name, len(ns.have), ns.total, ns.percent, len(ns.excluded)) for ns in report]
    rows.append(("all", have, total, 100.0 * have / total, sum(len(ns.excluded) for ns in report)))
    if markdown:
        lines = ["| namespace | have | total | percent | excluded |", "|---|---:|---:|---:|---:|"]
        lines += [f"| `{n}` | {h} | {t} | {p:.1f}% | {e} |" for n, h, t, p, e in rows]
    else:
        lines = [f"{'namespace':32s} {'have':>5s} {'total':>5s} {'percent':>8s} {'excluded':>8s}"]
        lines += [f"{n:32s} {h:5d} {t:5d} {p:7.1f}% {e:8d}" for n, h, t, p, e in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--missing", action="store_true", help="also list every missing name")
    parser.add_argument("--excluded", action="store_true", help="also list every excluded name")
    parser.add_argument("--markdown", action="store_true", help="print the totals as a Markdown table")
    args = parser.parse_args(argv)

    import torch

    report = coverage()
    print(f"torch {torch.__version__} public API in oneflow (excluded names: {EXCLUDED_FILE.name})\n")
    print(format_table(report, markdown=args.markdown))
    for ns in report:
        if args.missing and ns.missing:
            kinds = torch_names(ns.name)
            by_kind = ", ".join(
                f"{sum(kinds[n] == k for n in ns.missing)} {k}" for k in ("class", "function", "module", "attribute")
            )
            print(f"\nmissing in {ns.name} ({len(ns.missing)}: {by_kind}):")
            for n in ns.missing:
                print(f"  {ns.name}.{n}  ({kinds[n]})")
        if args.excluded and ns.excluded:
            print(f"\nexcluded from {ns.name} ({len(ns.excluded)}): " + " ".join(ns.excluded))


if __name__ == "__main__":
    main()
