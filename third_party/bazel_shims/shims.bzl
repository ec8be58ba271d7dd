"""Local stand-ins for the rule repositories Bazel 4 fetches over HTTP.

Bazel 4.2's built-in WORKSPACE suffix refers to @rules_cc, @rules_java and
@remote_coverage_tools. Defining them here first keeps every build offline.
Each shim only re-exports Bazel's native rules, so it never drifts from the
Bazel binary it runs under.
"""

def _reexport(names):
    lines = []
    for n in names:
        lines.append("def {n}(**kwargs):\n    native.{n}(**kwargs)\n".format(n = n))
    return "\n".join(lines)

_CC_RULES = [
    "cc_binary",
    "cc_import",
    "cc_library",
    "cc_proto_library",
    "cc_test",
    "cc_toolchain",
    "cc_toolchain_suite",
    "fdo_prefetch_hints",
    "fdo_profile",
    "objc_library",
]

_JAVA_RULES = [
    "java_binary",
    "java_import",
    "java_library",
    "java_lite_proto_library",
    "java_package_configuration",
    "java_plugin",
    "java_proto_library",
    "java_runtime",
    "java_test",
    "java_toolchain",
]

def _rules_cc_impl(ctx):
    ctx.file("WORKSPACE", "workspace(name = \"rules_cc\")\n")
    ctx.file("BUILD", "")
    ctx.file("cc/BUILD", "")
    ctx.file("cc/defs.bzl", _reexport(_CC_RULES))

def _rules_java_impl(ctx):
    ctx.file("WORKSPACE", "workspace(name = \"rules_java\")\n")
    ctx.file("BUILD", "")
    ctx.file("java/BUILD", "")
    ctx.file("java/defs.bzl", _reexport(_JAVA_RULES))

def _remote_coverage_tools_impl(ctx):
    ctx.file("WORKSPACE", "workspace(name = \"remote_coverage_tools\")\n")
    ctx.file("BUILD", """filegroup(
    name = "coverage_report_generator",
    srcs = [],
    visibility = ["//visibility:public"],
)
""")

_rules_cc = repository_rule(implementation = _rules_cc_impl)
_rules_java = repository_rule(implementation = _rules_java_impl)
_remote_coverage_tools = repository_rule(implementation = _remote_coverage_tools_impl)

def bazel_shims():
    _rules_cc(name = "rules_cc")
    _rules_java(name = "rules_java")
    _remote_coverage_tools(name = "remote_coverage_tools")
