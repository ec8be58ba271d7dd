"""GoogleTest (Debian libgtest-dev ships static libraries): the C++ unit test framework."""

load("//third_party:system_library.bzl", "system_library")

def repo():
    system_library(
        name = "gtest",
        header = "gtest/gtest.h",
        libs = ["gtest_main", "gtest"],
        apt_package = "libgtest-dev",
        target = "gtest_main",
        extra_linkopts = ["-lpthread"],
    )
