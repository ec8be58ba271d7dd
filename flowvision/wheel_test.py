"""The flowvision wheel installs next to the oneflow wheel and imports; its version checks hold."""

from install_check import check_package_wheel, check_requirement_enforced, read_version

import flowvision
import oneflow
from oneflow._plugin import version_satisfies


def test_source_tree_package_imports_with_its_version():
    assert flowvision.__version__ == read_version("flowvision/VERSION")
    assert version_satisfies(oneflow.__version__, flowvision.ONEFLOW_REQUIREMENT)


def test_wheel_installs_into_fresh_venv_and_imports():
    venv, requires = check_package_wheel("flowvision/wheel.whl", "flowvision", "flowvision", "flowvision/VERSION")
    with venv:
        assert requires == "oneflow" + flowvision.ONEFLOW_REQUIREMENT
        check_requirement_enforced(venv, "flowvision")
