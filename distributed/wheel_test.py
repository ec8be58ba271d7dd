"""The oneflow-distributed wheel installs next to the oneflow wheel and imports; its version checks hold."""

from install_check import check_package_wheel, check_requirement_enforced, read_version

import oneflow.distributed
import oneflow
from oneflow._plugin import version_satisfies


def test_source_tree_package_imports_with_its_version():
    assert oneflow.distributed.__version__ == read_version("distributed/VERSION")
    assert version_satisfies(oneflow.__version__, oneflow.distributed.ONEFLOW_REQUIREMENT)


def test_wheel_installs_into_fresh_venv_and_imports():
    venv, requires = check_package_wheel("distributed/wheel.whl", "oneflow.distributed", "oneflow-distributed", "distributed/VERSION")
    with venv:
        assert requires == "oneflow" + oneflow.distributed.ONEFLOW_REQUIREMENT
        check_requirement_enforced(venv, "oneflow.distributed")
