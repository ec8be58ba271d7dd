"""Nothing imports "upward" (DESIGN.md section 2), not even by an importlib string.

Python: every .py file is parsed; its import statements and the string arguments of
``importlib.import_module``, ``__import__`` and ``find_spec`` are the modules it names.

- core/oneflow names no module of the plugins (oneflow.distributed, oneflow.nn.parallel,
  oneflow.nn.graph, their entry points) nor libai, flowvision, oneflow_serving: plugins register
  hooks in oneflow._plugin instead.
- distributed and graph may use all of oneflow, private modules included, but not each other nor
  the application packages.
- libai, flowvision and serving use only the public oneflow API: no oneflow._C, no module with a
  private component (oneflow._tensor, oneflow.distributed._collectives, ...). oneflow._plugin, the
  version check each of them runs at import, is the one exception: it is the plugin interface.

C++: every #include of a repository file goes to the same layer or one below:
core/runtime < core/framework < ops/defs < ops/cpu, ops/cuda < core/pybind < distributed/csrc.

Tests (``*_test.py``) of libai, flowvision and serving may use private modules: they check the
package against the core's internals (e.g. oneflow._C for reference values). They get no other
exemption: a core test still runs without the plugins installed.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from repo_files import repo_root, source_files

ROOT = repo_root()

# Folder of the repository -> (layer name, the folder that is its import root).
PY_PACKAGES = {
    "core/oneflow": ("core", "core"),
    "distributed": ("distributed", "distributed"),
    "graph": ("graph", "graph"),
    "libai": ("libai", "libai"),
    "flowvision": ("flowvision", "flowvision"),
    "serving": ("serving", "serving"),
}
APPLICATIONS = ("libai", "flowvision", "serving")
APPLICATION_MODULES = {"libai": "libai", "flowvision": "flowvision", "serving": "oneflow_serving"}
PLUGIN_INTERFACE = "oneflow._plugin"

# Violations kept on purpose, each with its reason: (repo path, named module) -> reason.
ALLOWLIST: dict[tuple[str, str], str] = {}

C_LAYERS = {
    "core/runtime": 0,
    "core/framework": 1,
    "ops/api": 2,
    "ops/defs": 2,
    "ops/cpu": 3,
    "ops/cuda": 3,
    "core/pybind": 4,
    "distributed/csrc": 5,
}


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _package_of(rel: str) -> tuple[str, str] | None:
    for folder, (layer, import_root) in PY_PACKAGES.items():
        if rel.startswith(folder + "/"):
            return layer, import_root
    return None


def _module_name(rel: str, import_root: str) -> str:
    parts = rel[len(import_root) + 1 : -len(".py")].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _plugin_modules(layer: str) -> set[str]:
    """The modules that the files of plugin ``layer`` (distributed or graph) define."""
    out = set()
    for path in source_files(ROOT / layer, (".py",)):
        rel = _rel(path)
        if rel.startswith(f"{layer}/oneflow/") and not rel.endswith("_test.py"):
            out.add(_module_name(rel, layer))
    return out


PLUGIN_MODULES = {layer: _plugin_modules(layer) for layer in ("distributed", "graph")}


def _under(name: str, modules) -> bool:
    return any(name == m or name.startswith(m + ".") for m in modules)


def _string_arg(call: ast.Call) -> str | None:
    func = call.func
    called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if called not in ("import_module", "__import__", "find_spec") or not call.args:
        return None
    first = call.args[0]
    return first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None


def named_modules(source: str, module: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, module) for each module that ``source`` (the module ``module``) imports or names in
    an importlib call; ``from a import b`` names ``a`` and ``a.b`` (b may be a submodule)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module.split(".") if is_package else module.split(".")[:-1]
                package = package[: len(package) - node.level + 1]
                base = ".".join(package + ([base] if base else []))
            out.append((node.lineno, base))
            out += [(node.lineno, f"{base}.{alias.name}") for alias in node.names if alias.name != "*"]
        elif isinstance(node, ast.Call):
            name = _string_arg(node)
            if name is not None:
                out.append((node.lineno, name))
    return out


def python_violations(rel: str, source: str) -> list[str]:
    """The upward imports of the repository file ``rel`` with contents ``source``."""
    package = _package_of(rel)
    if package is None:  # tools, ops/parity: above every layer
        return []
    layer, import_root = package
    module = _module_name(rel, import_root)
    is_test = rel.endswith("_test.py")
    out = []
    for line, name in named_modules(source, module, rel.endswith("__init__.py")):
        why = None
        own = APPLICATION_MODULES.get(layer)
        if _under(name, APPLICATION_MODULES.values()) and not (own and _under(name, (own,))):
            why = "an application package"
        elif layer == "core" and _under(name, PLUGIN_MODULES["distributed"] | PLUGIN_MODULES["graph"]):
            why = "a plugin module (register a hook in oneflow._plugin instead)"
        elif layer == "distributed" and _under(name, PLUGIN_MODULES["graph"]):
            why = "the graph plugin"
        elif layer == "graph" and _under(name, PLUGIN_MODULES["distributed"]):
            why = "the distributed plugin"
        elif (
            layer in APPLICATIONS
            and not is_test
            and _under(name, ("oneflow",))
            and not _under(name, (PLUGIN_INTERFACE,))
            and any(part.startswith("_") and not part.startswith("__") for part in name.split("."))
        ):
            why = "a private oneflow module (use the public API)"
        if why is not None and (rel, name) not in ALLOWLIST:
            out.append(f"{rel}:{line}: {layer} names {name}: {why}")
    return out


_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.MULTILINE)


def _c_layer(rel: str) -> tuple[str, int] | None:
    for folder, rank in C_LAYERS.items():
        if rel.startswith(folder + "/"):
            return folder, rank
    return None


def cc_violations(rel: str, source: str) -> list[str]:
    """The #includes of ``rel`` that reach a higher C++ layer."""
    own = _c_layer(rel)
    if own is None:
        return []
    out = []
    for m in _INCLUDE.finditer(source):
        target = _c_layer(m.group(1))
        if target is not None and target[1] > own[1]:
            line = source.count("\n", 0, m.start()) + 1
            out.append(f"{rel}:{line}: {own[0]} includes {m.group(1)} from the higher layer {target[0]}")
    return out


def test_python_imports_go_down():
    problems = []
    for path in source_files(ROOT, (".py",)):
        problems += python_violations(_rel(path), path.read_text(encoding="utf-8"))
    assert not problems, "upward imports:\n" + "\n".join(problems)


def test_cc_includes_go_down():
    problems = []
    for path in source_files(ROOT, (".cc", ".h", ".cu", ".inc")):
        problems += cc_violations(_rel(path), path.read_text(encoding="utf-8"))
    assert not problems, "upward includes:\n" + "\n".join(problems)


def test_allowlist_entries_are_still_needed():
    for (rel, name), reason in ALLOWLIST.items():
        source = (ROOT / rel).read_text(encoding="utf-8")
        package = _package_of(rel)
        assert package is not None and reason, rel
        names = [n for _, n in named_modules(source, _module_name(rel, package[1]), rel.endswith("__init__.py"))]
        assert name in names, f"{rel} no longer names {name}: remove it from ALLOWLIST"


def test_plugins_are_found():
    assert "oneflow.distributed" in PLUGIN_MODULES["distributed"]
    assert "oneflow.nn.parallel" in PLUGIN_MODULES["distributed"]
    assert "oneflow.nn.graph" in PLUGIN_MODULES["graph"]


# ---- the checker on small examples -------------------------------------------------------------


@pytest.mark.parametrize(
    "rel,source,bad",
    [
        ("core/oneflow/x.py", "import oneflow.distributed", True),
        ("core/oneflow/x.py", "from oneflow import distributed", True),
        ("core/oneflow/x.py", "from oneflow.nn import parallel", True),
        ("core/oneflow/x.py", "import importlib\nimportlib.import_module('oneflow.distributed.env')", True),
        ("core/oneflow/x.py", "from importlib.util import find_spec\nfind_spec('oneflow.nn.graph')", True),
        ("core/oneflow/x.py", "__import__('flowvision')", True),
        ("core/oneflow/nn/x.py", "from . import parallel", True),
        ("core/oneflow/nn/x.py", "from .. import distributed", True),
        ("core/oneflow/x.py", "from oneflow import _plugin, nn\nimport oneflow._C", False),
        ("distributed/oneflow/distributed/x.py", "from oneflow import _C\nimport oneflow.nn.parallel", False),
        ("distributed/oneflow/distributed/x.py", "import oneflow.nn.graph", True),
        ("graph/oneflow/nn/graph/x.py", "from oneflow.distributed import env", True),
        ("flowvision/flowvision/x.py", "from oneflow import _C", True),
        ("flowvision/flowvision/x.py", "import oneflow.nn.functional as F\nimport oneflow as flow", False),
        ("flowvision/flowvision/x.py", "from oneflow.distributed._collectives import x", True),
        ("flowvision/flowvision/x.py", "from oneflow._plugin import check_oneflow_requirement", False),
        ("flowvision/x_test.py", "from oneflow import _C", False),
        ("libai/libai/x.py", "import oneflow_serving", True),
        ("serving/oneflow_serving/x.py", "from oneflow_serving import _version", False),
        ("tools/x.py", "import oneflow.distributed", False),
    ],
)
def test_python_checker(rel, source, bad):
    assert bool(python_violations(rel, source)) == bad


@pytest.mark.parametrize(
    "rel,source,bad",
    [
        ("core/runtime/x.cc", '#include "core/framework/dispatch.h"', True),
        ("core/framework/x.cc", '#include "core/runtime/tensor_impl.h"\n#include <vector>', False),
        ("core/framework/x.h", '#include "ops/defs/x.h"', True),
        ("ops/defs/x.cc", '#include "ops/cpu/loops.h"', True),
        ("ops/cpu/x.cc", '#include "ops/defs/x.h"', False),
        ("core/pybind/x.cc", '#include "ops/cpu/x.h"', False),
        ("core/pybind/x.cc", '#include "distributed/csrc/tcp_store.h"', True),
        ("tools/bench/x.cc", '#include "core/pybind/x.h"', False),
    ],
)
def test_cc_checker(rel, source, bad):
    assert bool(cc_violations(rel, source)) == bad
