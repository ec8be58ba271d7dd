"""The oneflow-serving wheel installs next to the oneflow wheel and imports; its version checks hold."""

from install_check import check_package_wheel, check_requirement_enforced, read_version

import oneflow_serving
import oneflow
from oneflow._plugin import version_satisfies


def test_source_tree_package_imports_with_its_version():
    assert oneflow_serving.__version__ == read_version("serving/VERSION")
    assert version_satisfies(oneflow.__version__, oneflow_serving.ONEFLOW_REQUIREMENT)


def test_wheel_installs_into_fresh_venv_and_imports():
    venv, requires = check_package_wheel("serving/wheel.whl", "oneflow_serving", "oneflow-serving", "serving/VERSION")
    with venv:
        assert requires == "oneflow" + oneflow_serving.ONEFLOW_REQUIREMENT
        check_requirement_enforced(venv, "oneflow_serving")
