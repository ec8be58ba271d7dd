"""The oneflow-distributed package imports from the source tree and from its wheel, with its version checks."""

from install_check import check_package_sources, check_package_wheel


def test_sources():
    check_package_sources("distributed", "oneflow.distributed")


def test_wheel():
    check_package_wheel("distributed", "oneflow.distributed", "oneflow-distributed")
