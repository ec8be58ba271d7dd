"""oneDNN (Debian libdnnl-dev 2.6.x, built with OpenMP): CPU conv/matmul/norm primitives."""

load("//third_party:system_library.bzl", "system_library")

def repo():
    system_library(
        name = "onednn",
        header = "dnnl.hpp",
        libs = ["dnnl"],
        apt_package = "libdnnl-dev",
        target = "onednn",
        extra_linkopts = ["-fopenmp"],
    )
