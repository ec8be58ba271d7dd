"""The oneflow-graph wheel installs next to the oneflow wheel and imports; its version checks hold."""

from install_check import check_package_wheel, check_requirement_enforced, read_version

import oneflow.nn.graph
import oneflow
from oneflow._plugin import version_satisfies


def test_source_tree_package_imports_with_its_version():
    assert oneflow.nn.graph.__version__ == read_version("graph/VERSION")
    assert version_satisfies(oneflow.__version__, oneflow.nn.graph.ONEFLOW_REQUIREMENT)


def test_wheel_installs_into_fresh_venv_and_imports():
    venv, requires = check_package_wheel("graph/wheel.whl", "oneflow.nn.graph", "oneflow-graph", "graph/VERSION")
    with venv:
        assert requires == "oneflow" + oneflow.nn.graph.ONEFLOW_REQUIREMENT
        check_requirement_enforced(venv, "oneflow.nn.graph")
