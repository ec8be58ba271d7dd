"""Every op declares an SBP rule family that the global execution layer implements."""

import pathlib

import pytest

import oneflow as flow
from oneflow.distributed import sbp_families


def _declared():
    return [text.split("(", 1)[0] for text in flow._C._op_schemas()]


def test_every_declared_family_is_implemented_and_its_parameters_parse():
    problems = []
    for full_name in _declared():
        sbp = flow._C.op_info(full_name)["sbp"]
        family, params, reason = sbp["family"], sbp["params"], sbp["reason"]
        if family in ("broadcast_only", "unsupported"):
            if not reason:
                problems.append(f"{full_name}: {family} without a reason")
            continue
        try:
            assert callable(sbp_families.family_rule(family, params))
        except (KeyError, TypeError, ValueError) as e:
            problems.append(f"{full_name}: {family}({params}): {e}")
    assert not problems, problems


def test_families_module_names_no_op():
    # Ops say which family they belong to (with parameters); the families never list ops nor
    # branch on an op's name.
    here = pathlib.Path(sbp_families.__file__).parent
    for path in [here / "sbp_families.py", *sorted(here.glob("_sbp_*.py"))]:
        text = path.read_text()
        assert "info.name" not in text and "info.overload" not in text, path.name
    source = pathlib.Path(sbp_families.__file__).read_text()
    for name in ("softmax", "conv2d", "cross_entropy", "mm", "add", "reshape_"):
        assert f'"{name}"' not in source, name


def test_rules_read_back_from_the_declaration():
    assert flow._C.op_info("add")["sbp"] == {"family": "elementwise", "params": "partial=PP", "reason": ""}
    assert flow._C.op_info("mul")["sbp"]["params"] == "partial=PB,BP"
    assert flow._C.op_info("sum.dim")["sbp"] == {"family": "reduction", "params": "linear=sum", "reason": ""}
    assert flow._C.op_info("matmul")["sbp"]["family"] == "matmul"
    assert flow._C.op_info("as_strided")["sbp"]["family"] == "unsupported"


def test_param_parsing():
    assert sbp_families.parse_params("linear=sum nout=2") == {"linear": "sum", "nout": 2}
    assert sbp_families.parse_params("arg= last=2 default=None") == {"arg": "", "last": 2, "default": None}
    with pytest.raises(ValueError, match="expected key=value"):
        sbp_families.parse_params("linear")
    with pytest.raises(KeyError, match="unknown SBP rule family"):
        sbp_families.family_rule("no_such_family", "")
