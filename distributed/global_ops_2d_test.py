"""The op cases of global_ops_test.py on a 2x2 placement of 4 ranks: 2-D sbp for every input, a
sample of the combinations per op, forward values and gradients equal to one process's."""

import os

import pytest
from global_ops_test import CASES, run_case
from global_testing import Checks, assert_check, worker_main

import oneflow as flow

CHECKS = Checks()
LIMIT = 32  # 2-D combinations sampled per op (all of them when fewer)


def _register(name, fn, specs):
    def two_d(f):
        run_case(f, flow.placement("cpu", [[0, 1], [2, 3]]), name, fn, specs, two_d=True, limit=LIMIT)

    two_d.__name__ = name
    CHECKS(worlds=[4])(two_d)


for _name, (_fn, _specs) in CASES.items():
    _register(_name, _fn, _specs)

SCRIPT = os.path.abspath(__file__)
TEST_CASES = CHECKS.cases()


@pytest.mark.parametrize("n,name", TEST_CASES, ids=[f"{n}ranks-{name}" for n, name in TEST_CASES])
def test_global_op_2d(n, name):
    assert_check(SCRIPT, n, name)


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["checks"]:
        worker_main(CHECKS)
