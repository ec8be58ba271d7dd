"""The oneflow-serving package imports from the source tree and from its wheel, with its version checks."""

from install_check import check_package_sources, check_package_wheel


def test_sources():
    check_package_sources("serving", "oneflow_serving")


def test_wheel():
    check_package_wheel("serving", "oneflow_serving", "oneflow-serving")
