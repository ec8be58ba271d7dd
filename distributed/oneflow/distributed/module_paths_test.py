"""OneFlow's module paths of the Global Tensor names: ``import oneflow.env`` (and comm, boxing,
sbp) works and gives the same module as the attribute ``oneflow.env``, in either order."""

import subprocess
import sys

import pytest

_CHECK = """
import importlib, sys
import oneflow as flow
first, name = sys.argv[1], sys.argv[2]
if first == "attribute":
    attr = getattr(flow, name)
    mod = importlib.import_module("oneflow." + name)
else:
    mod = importlib.import_module("oneflow." + name)
    attr = getattr(flow, name)
impl = importlib.import_module("oneflow.distributed." + name)
assert mod is attr is impl, (mod, attr, impl)
print("ok")
"""


@pytest.mark.parametrize("first", ["attribute", "import"])
@pytest.mark.parametrize("name", ["env", "comm", "boxing", "sbp"])
def test_module_path_is_the_attribute(first, name):
    # A fresh interpreter each: the order of first use is what is under test.
    r = subprocess.run([sys.executable, "-c", _CHECK, first, name], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_from_oneflow_env_import():
    import oneflow as flow
    from oneflow.comm import all_reduce
    from oneflow.env import get_rank, get_world_size
    from oneflow.sbp import broadcast, split

    assert get_rank() == flow.env.get_rank() == 0 and get_world_size() == 1
    assert all_reduce is flow.comm.all_reduce
    assert split(0) == flow.sbp.split(0) and broadcast == flow.sbp.broadcast
