"""The one place where Bazel rules are configured for this monorepo.

Every BUILD file loads its rules from here, so compiler flags, test tags and
sizes, and the Python test runner change in one place.
"""

load("@local_config_cuda//:defs.bzl", "CUDA_ENABLED", "NVCC")
load("@local_config_python//:defs.bzl", "PLATFORM_TAG", "PYTHON_TAG")

# Hidden visibility everywhere: the only symbol the extension exports is its
# PyInit function, so two copies of the core can never clash in one process.
OF_COPTS = [
    "-std=c++17",
    "-fvisibility=hidden",
    "-Wall",
    "-Wextra",
    "-Wno-unused-parameter",
    "-Wno-missing-field-initializers",
]

OF_TEST_COPTS = OF_COPTS + ["-fvisibility=default"]

def of_cc_library(name, copts = [], **kwargs):
    native.cc_library(name = name, copts = OF_COPTS + copts, **kwargs)

def of_cc_test(name, deps = [], copts = [], size = "small", **kwargs):
    """A GoogleTest binary; `main` comes from gtest_main."""
    native.cc_test(
        name = name,
        deps = deps + ["@gtest//:gtest_main"],
        copts = OF_TEST_COPTS + copts,
        # Static: the libraries hide their symbols, so they cannot be shared objects.
        linkstatic = 1,
        size = size,
        **kwargs
    )

def of_pybind_extension(name, srcs = [], deps = [], copts = [], **kwargs):
    """A Python extension module `<name>.so` built with pybind11.

    Args:
      name: the module name as Python imports it (the file is `<name>.so`).
      srcs: binding sources; they define PYBIND11_MODULE(<name>, m).
      deps: C++ libraries linked statically into the module.
    """
    native.cc_binary(
        name = name + ".so",
        srcs = srcs,
        deps = deps + [
            "@local_config_python//:pybind11",
            "@local_config_python//:numpy_headers",
        ],
        copts = OF_COPTS + copts,
        linkshared = 1,
        linkstatic = 1,
        # Keep symbols of statically linked archives (libstdc++ aside) local.
        linkopts = ["-Wl,--exclude-libs,ALL"],
        **kwargs
    )

def of_py_library(name, **kwargs):
    native.py_library(name = name, srcs_version = "PY3", **kwargs)

def of_py_binary(name, **kwargs):
    native.py_binary(name = name, python_version = "PY3", srcs_version = "PY3", **kwargs)

def of_py_test(name, srcs, deps = [], data = [], args = [], tags = [], size = "small", **kwargs):
    """A pytest file run as one Bazel test.

    Each test case is reported in Bazel's test.xml (pytest's JUnit output), which
    .ci/run totals into one 'N passed, N failed' line. Tag GPU tests "gpu" and
    tests that start several processes "multiprocess".
    """
    runner = "//tools/rules:pytest_main.py"

    # Tests run two at a time on few cores, and OpenMP threads that spin while
    # waiting steal the cores the other test needs: let them sleep instead.
    env = dict(kwargs.pop("env", {}))
    env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    native.py_test(
        name = name,
        srcs = srcs + [runner],
        main = runner,
        deps = deps,
        data = data,
        args = [native.package_name() + "/" + s for s in srcs] + args,
        python_version = "PY3",
        srcs_version = "PY3",
        tags = tags,
        size = size,
        env = env,
        **kwargs
    )

# The GPU architectures the kernels are built for: Ampere (A100) and Hopper (H100/H200).
CUDA_ARCHS = ["80", "90"]

def cuda_library(name, srcs = [], hdrs = [], deps = [], copts = [], nvcc_hdrs = [], **kwargs):
    """A library of CUDA kernels, compiled by nvcc under --config=cuda.

    Without CUDA it is a header-only library with no kernels, and dependents see
    no OF_WITH_CUDA define, so CPU-only builds and tests stay green.

    Args:
      nvcc_hdrs: headers of other packages the .cu files include (labels of
        exported files): nvcc runs in a genrule that sees only declared inputs.
    """
    if not CUDA_ENABLED:
        native.cc_library(name = name, hdrs = hdrs, deps = deps, **kwargs)
        return
    gencode = " ".join(["-gencode arch=compute_%s,code=sm_%s" % (a, a) for a in CUDA_ARCHS])
    objs = []
    for src in srcs:
        obj = name + "_" + src.replace("/", "_").replace(".cu", ".o")
        native.genrule(
            name = obj + "_compile",
            srcs = [src] + hdrs + nvcc_hdrs + kwargs.get("textual_hdrs", []),
            outs = [obj],
            cmd = "%s -std=c++17 -O3 --expt-relaxed-constexpr %s -Xcompiler -fPIC,-fvisibility=hidden -I. -I$(GENDIR) %s -c $(location %s) -o $@" % (
                NVCC,
                gencode,
                " ".join(copts),
                src,
            ),
        )
        objs.append(obj)
    native.cc_library(
        name = name,
        srcs = objs,
        hdrs = hdrs,
        deps = deps + ["@local_config_cuda//:cudart"],
        defines = ["OF_WITH_CUDA=1"],
        alwayslink = 1,
        **kwargs
    )

def of_version_py(name, version_file, out = "_version.py", oneflow_requirement = None):
    """Writes `out` (`__version__`, and the oneflow range a plugin needs) from VERSION.

    Args:
      oneflow_requirement: for packages built on oneflow, the version range they
        need (e.g. ">=0.1.0,<0.2.0"), written as ONEFLOW_REQUIREMENT. Pass the
        same string to the wheel's `requires` so that pip and the import-time
        check agree.
    """
    lines = ['echo "__version__ = \\"$$(tr -d "[:space:]" < $<)\\""']
    if oneflow_requirement:
        lines.append('echo "ONEFLOW_REQUIREMENT = \\"%s\\""' % oneflow_requirement)
    native.genrule(
        name = name,
        srcs = [version_file],
        outs = [out],
        cmd = "(echo '# Generated from %s by of_version_py.'; %s) > $@" % (version_file, "; ".join(lines)),
    )

def of_version_header(name, version_file, out, macro):
    """Writes a header defining `macro` as the version string in `version_file`."""
    native.genrule(
        name = name,
        srcs = [version_file],
        outs = [out],
        cmd = "echo \"#define %s \\\"$$(tr -d '[:space:]' < $<)\\\"\" > $@" % macro,
    )

def _py_stubs_impl(ctx):
    outs = {key: ctx.actions.declare_file(path) for key, path in ctx.attr.outs.items()}
    args = ctx.actions.args()
    for key, out in outs.items():
        args.add("--" + key, out)
    ctx.actions.run(
        executable = ctx.attr.generator[DefaultInfo].files_to_run,
        arguments = [args],
        outputs = outs.values(),
        use_default_shell_env = True,  # PATH, for the py_binary's `#!/usr/bin/env python3`
        mnemonic = "PyStubs",
        progress_message = "Generating type stubs %s" % ctx.label,
    )
    files = depset(outs.values())
    return [DefaultInfo(files = files, runfiles = ctx.runfiles(transitive_files = files))]

_py_stubs = rule(
    implementation = _py_stubs_impl,
    attrs = {
        # Built for the target, not the exec platform: it imports the package's own extension,
        # which a separate exec-config build of the whole C++ core would otherwise duplicate.
        "generator": attr.label(mandatory = True, executable = True, cfg = "target"),
        "outs": attr.string_dict(mandatory = True),
    },
)

def of_py_stubs(name, generator, outs, **kwargs):
    """Type stubs (.pyi) written at build time by `generator`, a py_binary that imports the package.

    Args:
      generator: run as `generator --<key> <path of out> ...` for each entry of `outs`.
      outs: {flag name: output path relative to this package}, e.g.
        {"init": "__init__.pyi"}. Put the target in a py_library's `data` to ship the stubs
        in its runfiles and so in the wheel.
    """
    _py_stubs(name = name, generator = generator, outs = outs, **kwargs)

def _py_wheel_impl(ctx):
    files = depset(transitive = [d[DefaultInfo].default_runfiles.files for d in ctx.attr.deps] +
                                [d[PyInfo].transitive_sources for d in ctx.attr.deps if PyInfo in d])
    entries = []
    for f in files.to_list():
        for root in ctx.attr.package_roots:
            prefix = root.rstrip("/") + "/"
            if not f.short_path.startswith(prefix):
                continue
            arcname = f.short_path[len(prefix):]
            if arcname.endswith("_test.py") or arcname.endswith("conftest.py") or arcname.split("/")[-1] in ["BUILD", "VERSION"]:
                continue
            entries.append("%s=%s" % (arcname, f.path))
    filelist = ctx.actions.declare_file(ctx.label.name + ".files")
    ctx.actions.write(filelist, "\n".join(sorted(entries)) + "\n")
    args = ctx.actions.args()
    args.add("--output", ctx.outputs.wheel)
    args.add("--name", ctx.attr.dist_name)
    args.add("--version_file", ctx.file.version_file)
    args.add("--summary", ctx.attr.summary)
    args.add("--filelist", filelist)
    args.add_all(ctx.attr.requires, before_each = "--requires")
    if ctx.attr.platform_specific:
        args.add("--tag", "%s-%s-%s" % (PYTHON_TAG, PYTHON_TAG, PLATFORM_TAG))
        args.add("--requires_python", "==%s.%s.*" % (PYTHON_TAG[2], PYTHON_TAG[3:]))
    else:
        args.add("--tag", "py3-none-any")
    ctx.actions.run(
        executable = ctx.executable._writer,
        arguments = [args],
        inputs = depset([filelist, ctx.file.version_file], transitive = [files]),
        outputs = [ctx.outputs.wheel],
        mnemonic = "PyWheel",
        progress_message = "Building wheel %s" % ctx.attr.dist_name,
    )
    return [DefaultInfo(files = depset([ctx.outputs.wheel]), runfiles = ctx.runfiles(files = [ctx.outputs.wheel]))]

_py_wheel = rule(
    implementation = _py_wheel_impl,
    attrs = {
        "deps": attr.label_list(mandatory = True),
        "dist_name": attr.string(mandatory = True),
        "version_file": attr.label(allow_single_file = True, mandatory = True),
        "package_roots": attr.string_list(mandatory = True),
        "requires": attr.string_list(),
        "summary": attr.string(),
        "platform_specific": attr.bool(),
        "_writer": attr.label(default = "//tools/wheel:wheel_writer", executable = True, cfg = "exec"),
    },
    outputs = {"wheel": "%{name}.whl"},
)

def of_py_wheel(name, dist_name, version_file, deps, package_roots, requires = [], summary = "", platform_specific = False, **kwargs):
    """One installable wheel for one package of the monorepo.

    Args:
      dist_name: the distribution name pip sees (e.g. "flowvision").
      version_file: the package's VERSION file.
      deps: py_library targets whose files (and data, e.g. the extension) go in.
      package_roots: repo folders that are the wheel's root (e.g. "flowvision");
        files outside them are not packaged (they belong to other wheels).
      requires: Requires-Dist lines, e.g. "oneflow>=0.1.0,<0.2.0".
      platform_specific: True for wheels holding compiled code.
    """
    _py_wheel(
        name = name,
        dist_name = dist_name,
        version_file = version_file,
        deps = deps,
        package_roots = package_roots,
        requires = requires,
        summary = summary,
        platform_specific = platform_specific,
        **kwargs
    )

def of_python_package(name, module_dir, dist_name, summary, oneflow_requirement, deps = ["//core/oneflow"], extensions = [], package_data = []):
    """A Python package of the monorepo built on oneflow: library, version, wheel, wheel test.

    The library and the wheel are public (the package's API); the rest of the package stays
    private unless its BUILD file says otherwise.

    Args:
      name: the Bazel package's folder (also the py_library's name).
      module_dir: the import path as a folder under it, e.g. "oneflow/distributed".
      dist_name: the wheel's distribution name.
      oneflow_requirement: the oneflow versions it works with (">=0.1.0,<0.2.0"):
        written into _version.py (checked at import) and into the wheel's
        Requires-Dist, so the two never disagree.
      extensions: compiled modules of the package (`of_pybind_extension` outputs
        under module_dir, e.g. ":oneflow/distributed/_native.so"); they ship in
        the library and the wheel, which then becomes platform specific.
      package_data: glob patterns (relative to the Bazel package) of non-Python
        files under module_dir that ship in the library's runfiles and in the
        wheel, e.g. ["flowvision/datasets/testdata/**"].
    """
    of_version_py(
        name = "version_py",
        out = module_dir + "/_version.py",
        oneflow_requirement = oneflow_requirement,
        version_file = "VERSION",
    )
    of_py_library(
        name = name,
        srcs = native.glob(
            [module_dir.split("/")[0] + "/**/*.py"],
            exclude = ["**/*_test.py"],
        ) + [":version_py"],
        data = extensions + (native.glob(package_data) if package_data else []),
        imports = ["."],
        deps = deps,
        visibility = ["//visibility:public"],  # the package's Python API
    )
    of_py_wheel(
        name = "wheel",
        deps = [":" + name],
        dist_name = dist_name,
        package_roots = [native.package_name()],
        requires = ["oneflow" + oneflow_requirement],
        summary = summary,
        version_file = "VERSION",
        platform_specific = len(extensions) > 0,
        visibility = ["//visibility:public"],
    )
    of_py_test(
        name = "wheel_test",
        srcs = ["wheel_test.py"],
        data = [
            "VERSION",
            ":wheel",
            "//core:wheel",
        ],
        deps = [
            ":" + name,
            "//tools/wheel:install_check",
        ],
    )
