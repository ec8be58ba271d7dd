"""oneflow._plugin: the hooks and entry points through which the core reaches its plugins without
naming them. The core's tests run without any plugin installed; a fake plugin tree on sys.path
(in a subprocess) stands in for oneflow-distributed."""

import os
import subprocess
import sys
import textwrap

import pytest

import oneflow as flow
from oneflow import _plugin


def test_without_plugins_the_global_names_say_what_to_install():
    for name in ("placement", "sbp", "env", "comm", "boxing", "distributed"):
        with pytest.raises(ImportError, match=f"oneflow.{name} needs Global Tensor support.*oneflow-distributed"):
            getattr(flow, name)
    with pytest.raises(ImportError, match="DistributedDataParallel.*oneflow-distributed"):
        _ = flow.nn.parallel
    with pytest.raises(ImportError, match="placement= and sbp= .*oneflow-distributed"):
        flow.zeros(2, placement="cpu")
    with pytest.raises(AttributeError, match="module 'oneflow' has no attribute 'no_such_name'"):
        _ = flow.no_such_name
    with pytest.raises(AttributeError, match="module 'oneflow.nn' has no attribute 'no_such_name'"):
        _ = flow.nn.no_such_name
    assert not hasattr(flow, "__wrapped__")


def test_hooks_are_none_until_registered():
    assert _plugin.hook("a_hook_nobody_registers") is None
    with pytest.raises(ImportError, match="install something"):
        _plugin.load_hook("a_hook_nobody_registers", "install something")
    impl = object()
    _plugin.register_hook("plugin_test_hook", impl)
    try:
        assert _plugin.hook("plugin_test_hook") is impl
        assert _plugin.load_hook("plugin_test_hook", "unused") is impl
    finally:
        del _plugin._hooks["plugin_test_hook"]


_ENTRY_POINT = """
HOOKS = {"global_tensor": "oneflow.fakeplugin.global_tensor"}
ATTRIBUTES = {
    "oneflow": {"env": ("oneflow.fakeplugin", "ENV"), "fakeplugin": ("oneflow.fakeplugin", None)},
    "oneflow.nn": {"parallel": ("oneflow.fakeplugin.parallel", None)},
}
"""

_PACKAGE = """
from oneflow._plugin import register_hook
ENV = "the env module"
register_hook("process_group_world", lambda: (4, 1))
"""

_GLOBAL_TENSOR = """
import sys
from oneflow._plugin import register_hook
def make_global(make, placement, sbp, *args, **kwargs):
    return ("global", placement, sbp)
register_hook("global_tensor", sys.modules[__name__])
"""

_CHECK = """
import sys
import oneflow as flow
assert not [m for m in sys.modules if m.startswith("oneflow.fakeplugin")], "imported with oneflow"
from oneflow.utils.data import DistributedSampler
assert DistributedSampler(range(8), num_replicas=2, rank=0).num_replicas == 2
assert flow.env == "the env module" and "oneflow.fakeplugin" in sys.modules
assert DistributedSampler(range(8)).num_replicas == 4 and DistributedSampler(range(8)).rank == 1
assert "oneflow.fakeplugin.global_tensor" not in sys.modules
assert flow.zeros(2, placement="p", sbp="s") == ("global", "p", "s")
assert flow.nn.parallel.NAME == "parallel"
print("ok")
"""


def test_a_plugin_is_imported_on_first_use(tmp_path):
    files = {
        "oneflow/_entry_points/fakeplugin.py": _ENTRY_POINT,
        "oneflow/fakeplugin/__init__.py": _PACKAGE,
        "oneflow/fakeplugin/global_tensor.py": _GLOBAL_TENSOR,
        "oneflow/fakeplugin/parallel.py": 'NAME = "parallel"\n',
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(textwrap.dedent(text))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([*sys.path, str(tmp_path)]))
    env.pop("WORLD_SIZE", None)
    env.pop("RANK", None)
    r = subprocess.run([sys.executable, "-c", _CHECK], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr
