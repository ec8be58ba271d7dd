"""Every op in the registry has a parity row (ops/parity/*_test.py)."""

import importlib
import pathlib

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
