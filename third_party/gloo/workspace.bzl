"""gloo (Debian libgloo-dev): CPU collectives over TCP for oneflow.distributed."""

load("//third_party:system_library.bzl", "system_library")

def repo():
    system_library(
        name = "gloo",
        header = "gloo/allreduce.h",
        libs = ["gloo"],
        apt_package = "libgloo-dev",
        target = "gloo",
        extra_linkopts = ["-lpthread"],
    )
