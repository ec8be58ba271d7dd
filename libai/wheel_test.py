"""The libai wheel installs next to the oneflow wheel and imports; its version checks hold."""

from install_check import check_package_wheel, check_requirement_enforced, read_version

import libai
import oneflow
from oneflow._plugin import version_satisfies


def test_source_tree_package_imports_with_its_version():
    assert libai.__version__ == read_version("libai/VERSION")
    assert version_satisfies(oneflow.__version__, libai.ONEFLOW_REQUIREMENT)


def test_wheel_installs_into_fresh_venv_and_imports():
    venv, requires = check_package_wheel("libai/wheel.whl", "libai", "libai", "libai/VERSION")
    with venv:
        assert requires == "oneflow" + libai.ONEFLOW_REQUIREMENT
        check_requirement_enforced(venv, "libai")
