"""Every op in the registry has a parity row (ops/parity/*_test.py)."""

import importlib
import pathlib

import pytest
from parity import covered_ops

import oneflow as flow

# Gradient helpers are exercised through the ops whose backward uses them.
_INTERNAL_SUFFIXES = ("_backward",)


def _family_modules():
    here = pathlib.Path(__file__).parent
    return [importlib.import_module(p.stem) for p in sorted(here.glob("*_test.py")) if p.stem != "coverage_test"]


def test_every_declared_op_has_a_parity_row():
    covered = set()
    for module in _family_modules():
        covered |= covered_ops(module.CASES)
    declared = {name for name, _, _ in flow._C.op_table if not name.endswith(_INTERNAL_SUFFIXES)}
    missing = sorted(declared - covered)
    assert not missing, f"ops without a parity row: {missing}"
    unknown = sorted(covered - declared)
    assert not unknown, f"parity rows for undeclared ops: {unknown}"


def test_registry_is_consistent():
    assert flow._C._validate_ops() == []


def _full_names():
    return [text.split("(", 1)[0] for text in flow._C._op_schemas()]


def test_every_op_declares_an_sbp_rule_and_an_autocast_class():
    # OpRegistry::Validate reports these too; this names every offender at once.
    missing = [n for n in _full_names() if not flow._C.op_info(n)["sbp"]["family"]]
    assert not missing, f"ops without .Sbp(...): {missing}"
    policies = {"none", "lower_precision_fp", "fp32", "promote", "banned"}
    for n in _full_names():
        amp = flow._C.op_info(n)["autocast"]
        assert set(amp) == {"cpu", "cuda"} and set(amp.values()) <= policies, (n, amp)


def test_overloads_and_inplace_twins_share_an_autocast_class():
    # PyTorch's autocast lists name ops, not overloads: every overload of a name (and its in-place
    # twin, which autocast never casts) carries one class per device.
    by_name = {}
    for n in _full_names():
        info = flow._C.op_info(n)
        by_name.setdefault(info["name"], set()).add(tuple(sorted(info["autocast"].items())))
    mixed = {name: classes for name, classes in by_name.items() if len(classes) > 1}
    assert not mixed, mixed


def test_op_info_reads_the_declaration():
    mm = flow._C.op_info("mm")
    assert mm["name"] == "mm" and mm["schema"].startswith("mm(")
    assert mm["autocast"] == {"cpu": "lower_precision_fp", "cuda": "lower_precision_fp"}
    assert mm["sbp"]["family"] == "matmul" and "cpu" in mm["kernels"] and mm["differentiable"]
    assert flow._C.op_info("softmax")["autocast"] == {"cpu": "none", "cuda": "fp32"}
    assert flow._C.op_info("binary_cross_entropy")["autocast"]["cuda"] == "banned"
    assert flow._C._autocast_policy("cat", "cpu") == "promote"
    # traits: declared ones and those the schema implies
    assert "inplace" in flow._C.op_info("add_")["traits"]
    assert "view" in flow._C.op_info("transpose")["traits"]
    assert "elementwise" in flow._C.op_info("relu")["traits"]
    assert "random" in flow._C.op_info("dropout")["traits"]
    assert "fused_epilogue" in flow._C.op_info("fused_linear")["traits"]
    assert "mutates_args" in flow._C.op_info("_fused_adamw_")["traits"]
    assert "random" not in flow._C.op_info("add")["traits"]
    with pytest.raises(RuntimeError, match="no op named 'no_such_op'"):
        flow._C.op_info("no_such_op")
