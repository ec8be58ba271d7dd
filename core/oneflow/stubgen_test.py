"""The generated type stubs (oneflow/__init__.pyi, oneflow/nn/functional/__init__.pyi) cover the API."""

import ast
import os
import subprocess
import sys
import textwrap

import pytest

import oneflow as flow
import oneflow.nn.functional as F

PACKAGE_DIR = os.path.dirname(flow.__file__)
INIT_STUB = os.path.join(PACKAGE_DIR, "__init__.pyi")
FUNCTIONAL_STUB = os.path.join(PACKAGE_DIR, "nn", "functional", "__init__.pyi")
C_STUB = os.path.join(PACKAGE_DIR, "_C.pyi")


def _parse(path):
    with open(path) as f:
        return ast.parse(f.read(), filename=path)


def _names(body) -> dict:
    """{name: [its definitions]} of the statements of a module or class body."""
    names: dict = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.setdefault(node.name, []).append(node)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.setdefault(node.target.id, []).append(node)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    names.setdefault(target.id, []).append(node)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.asname:  # stubs re-export only `import x as x` forms
                    names.setdefault(alias.asname, []).append(node)
    return names


@pytest.fixture(scope="module")
def init_stub():
    return _parse(INIT_STUB)


@pytest.fixture(scope="module")
def tensor_stub(init_stub):
    (cls,) = [n for n in init_stub.body if isinstance(n, ast.ClassDef) and n.name == "Tensor"]
    return cls


def _params(fn: ast.FunctionDef):
    return [a.arg for a in fn.args.posonlyargs + fn.args.args], [a.arg for a in fn.args.kwonlyargs]


def test_stubs_parse_and_ship_a_py_typed_marker():
    _parse(INIT_STUB)
    _parse(FUNCTIONAL_STUB)
    _parse(C_STUB)
    assert os.path.exists(os.path.join(PACKAGE_DIR, "py.typed"))


def test_add_is_typed_from_its_schema(init_stub, tensor_stub):
    (add,) = _names(init_stub.body)["add"]
    assert _params(add) == (["self", "other"], ["alpha"])
    assert ast.unparse(add.args.kw_defaults[0]) == "..."
    assert ast.unparse(add.returns) == "Tensor"
    methods = _names(tensor_stub.body)
    (method,) = methods["add"]
    assert _params(method) == (["self", "other"], ["alpha"])
    assert "add_" in methods and "__add__" in methods and "__radd__" in methods


def test_overloads_varargs_and_named_returns(init_stub, tensor_stub):
    methods = _names(tensor_stub.body)
    views = methods["view"]
    assert len(views) == 2 and all(ast.unparse(d.decorator_list[0]) == "_overload" for d in views)
    assert views[1].args.vararg.arg == "size"  # x.view(2, 3)
    maxes = _names(init_stub.body)["max"]
    assert {ast.unparse(d.returns) for d in maxes} == {"Tensor", "_max_return"}
    (max_return,) = _names(init_stub.body)["_max_return"]
    assert [n.target.id for n in max_return.body] == ["values", "indices"]


def test_every_public_name_of_oneflow_is_declared(init_stub):
    declared = _names(init_stub.body)
    # (pytest imports this file as oneflow.stubgen_test, which is no part of the API)
    public = {n for n in dir(flow) if not n.startswith("_") and not n.endswith("_test")} | set(flow.__all__)
    assert not sorted(public - set(declared))
    ops = {name for name, _first, _inplace in flow._C.op_table if hasattr(flow, name)}
    assert not sorted(ops - set(declared))
    # The schema-generated functions are typed, not declared as Any.
    for name in ops:
        if getattr(flow, name) is getattr(flow._C.ops, name):
            assert isinstance(declared[name][0], ast.FunctionDef), name
    assert "placement" in declared  # from the oneflow-distributed plugin, when installed


def test_every_tensor_method_and_attribute_is_declared(tensor_stub):
    declared = _names(tensor_stub.body)
    public = {n for n in dir(flow.Tensor) if not n.startswith("_")}
    assert not sorted(public - set(declared))
    methods = {name for name, first, _ in flow._C.op_table if first == "self" and not name.startswith("_")}
    assert not sorted(methods - set(declared))


def test_functional_stub_covers_wrappers_and_ops():
    declared = _names(_parse(FUNCTIONAL_STUB).body)
    assert not sorted(set(F.__all__) - set(declared))
    ops = {name for name, _, _ in flow._C.op_table if not name.startswith("_")}
    assert not sorted(ops - set(declared))
    # Python wrappers are re-exported from their module, so their own annotations apply.
    (dropout,) = declared["dropout"]
    assert isinstance(dropout, ast.ImportFrom) and dropout.module.startswith("oneflow.nn.functional.")


def test_c_stub_declares_every_op():
    declared = _names(_parse(C_STUB).body)
    (ops,) = declared["_Ops"]
    assert not sorted({name for name, _, _ in flow._C.op_table} - set(_names(ops.body)))
    assert "ops" in declared and "__getattr__" in declared  # the rest of the extension is Any


def _mypy(tmp_path, code: str):
    script = tmp_path / "snippet.py"
    script.write_text(textwrap.dedent(code))
    env = dict(os.environ, MYPYPATH=os.path.dirname(PACKAGE_DIR))
    cmd = [sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", str(tmp_path / "cache"), str(script)]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path)


def test_mypy_accepts_correct_calls_and_the_stubs_themselves(tmp_path):
    r = _mypy(
        tmp_path,
        """
        import oneflow as flow
        import oneflow.nn.functional as F

        x = flow.ones(2, 3)
        y: flow.Tensor = flow.add(x, x, alpha=2)
        z = x.add(y).add_(1).view(3, 2).sum(0) * 2
        values: flow.Tensor = flow.max(x, dim=1).values
        d: flow.dtype = flow.float32
        r = F.relu(x) + F.softmax(x, dim=1)
        k: flow.Tensor = flow._C.ops.add(x, x, alpha=2) + flow._C.ops.max(x, 1).values
        """,
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_rejects_a_wrong_keyword(tmp_path):
    r = _mypy(tmp_path, "import oneflow as flow\nx = flow.ones(2)\nflow.add(x, x, alpah=2)\n")
    assert r.returncode == 1, r.stdout + r.stderr
    assert 'Unexpected keyword argument "alpah" for "add"' in r.stdout
