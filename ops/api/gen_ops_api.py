"""Writes the typed C++ op API (ops/api/ops.h, ops.cc) from the schemas declared in ops/defs.

For each op, one function in ``oneflow::ops`` that runs it, with one C++ parameter per schema
argument, typed by the argument's type, in schema order (a trailing run of arguments with
defaults may be left out):

    // add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
    TensorImplPtr add(const TensorArg& self, const TensorArg& other, const Def<ScalarArg>& alpha = {});

and the argument indices by name in ``oneflow::arg::<op>`` for kernels, infer functions and
backward formulas (``call.tensor(arg::add::self)``, ``ctx.get(arg::add::alpha)``). An overload
"sum.dim" is ``ops::sum_dim`` / ``arg::sum_dim``; the in-place twin "add_" is ``ops::add_``.

Usage: gen_ops_api.py --preprocessed <ops/defs sources after cpp -E> --header ops.h --source ops.cc
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass

import schema_scan

# C++ keywords an op or argument name could collide with; such a name gets a trailing "_op"/"_".
_KEYWORDS = {
    "and", "auto", "bool", "break", "case", "char", "class", "const", "default", "delete", "do",
    "double", "else", "enum", "explicit", "export", "false", "float", "for", "friend", "if",
    "inline", "int", "long", "new", "not", "operator", "or", "private", "protected", "public",
    "register", "return", "short", "signed", "sizeof", "static", "struct", "switch", "template",
    "this", "throw", "true", "try", "typedef", "typename", "union", "unsigned", "using", "virtual",
    "void", "volatile", "while", "xor",
}  # fmt: skip

# Schema type -> (parameter type, value type read back by ctx.get / call.get).
_TYPES = {
    "Tensor": ("TensorArg", "TensorImplPtr"),
    "Tensor[]": ("TensorList", "TensorList"),
    "Scalar": ("ScalarArg", "Scalar"),
    "int": ("int64_t", "int64_t"),
    "int[]": ("DimVector", "DimVector"),
    "float": ("double", "double"),
    "bool": ("bool", "bool"),
    "ScalarType": ("DType", "DType"),
    "Device": ("Device", "Device"),
    "str": ("std::string", "std::string"),
    "Generator": ("std::shared_ptr<Generator>", "std::shared_ptr<Generator>"),
}


@dataclass
class Arg:
    name: str
    base: str  # key of _TYPES
    optional: bool
    default: str | None  # as written, None when there is none

    @property
    def cpp_name(self) -> str:
        return self.name + "_" if self.name in _KEYWORDS else self.name

    def param_type(self, defaulted: bool) -> str:
        t, _ = _TYPES[self.base]
        if self.optional:
            t = {
                "TensorArg": "OptTensorArg",
                "std::shared_ptr<Generator>": "std::shared_ptr<Generator>",
            }.get(t, f"std::optional<{t}>")
        if defaulted and self.default is not None and self.default != "None":
            t = f"Def<{t}>"
        return t

    def value_type(self) -> str:
        _, v = _TYPES[self.base]
        if self.optional and self.base not in ("Tensor", "Generator"):
            return f"std::optional<{v}>"
        return v


@dataclass
class Op:
    schema: str
    full_name: str
    args: list[Arg]
    returns: list[str]  # return types without alias annotations

    @property
    def cpp_name(self) -> str:
        name = self.full_name.replace(".", "_")
        return name + "_op" if name in _KEYWORDS else name


def _split_top(text: str) -> list[str]:
    out, depth, cur = [], 0, []
    for ch in text:
        depth += ch in "([" and 1 or 0
        depth -= ch in ")]" and 1 or 0
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


_ARG = re.compile(r"^(\w+)(?:\([a-z]!?\))?(\[\d*\])?(\?)?\s+(\w+)(?:\s*=\s*(.+))?$")


def parse(schema: str) -> Op:
    head, _, ret = schema.rpartition("->")
    name = head[: head.index("(")].strip()
    inner = head[head.index("(") + 1 : head.rindex(")")]
    args = []
    for part in _split_top(inner):
        if part == "*":
            continue
        m = _ARG.match(part)
        if not m:
            raise ValueError(f"cannot read argument {part!r} of {schema!r}")
        base, lst, opt, arg_name, default = m.groups()
        key = base + ("[]" if lst is not None else "")
        if key not in _TYPES:
            raise ValueError(f"unknown type {key!r} in {schema!r}")
        args.append(Arg(arg_name, key, opt is not None, default))
    ret = ret.strip()
    if ret.startswith("(") and ret.endswith(")"):
        rets = [r.split()[0] for r in _split_top(ret[1:-1])]
    else:
        rets = [ret.split()[0]] if ret else []
    rets = [re.sub(r"\([a-z]!?\)", "", r) for r in rets]
    return Op(schema, name, args, rets)


def _return_type(op: Op) -> str:
    if op.returns == ["Tensor"]:
        return "TensorImplPtr"
    if op.returns == ["Tensor[]"]:
        return "TensorList"
    if op.returns and all(r == "Tensor" for r in op.returns):
        return f"std::array<TensorImplPtr, {len(op.returns)}>"
    raise ValueError(f"unsupported returns in {op.schema!r}")


def _defaulted_from(op: Op) -> int:
    """Index of the first argument of the trailing run that may be left out."""
    i = len(op.args)
    while i > 0 and (op.args[i - 1].default is not None or op.args[i - 1].optional):
        i -= 1
    return i


def _signature(op: Op, with_defaults: bool) -> str:
    first = _defaulted_from(op)
    params = []
    for i, a in enumerate(op.args):
        t = a.param_type(defaulted=i >= first)
        by_ref = t not in ("int64_t", "double", "bool", "DType")
        p = f"const {t}& {a.cpp_name}" if by_ref else f"{t} {a.cpp_name}"
        if with_defaults and i >= first:
            p += " = {}"
        params.append(p)
    return f"{_return_type(op)} {op.cpp_name}({', '.join(params)})"


def _body(op: Op) -> str:
    # Locals end in "_", which no schema argument name does (a keyword gets one, but none of
    # these three is a keyword).
    values = ", ".join(f"ToValue({a.cpp_name}, spec_.args[{i}])" for i, a in enumerate(op.args))
    ret = _return_type(op)
    tail = {
        "TensorImplPtr": "return out_[0].tensor();",
        "TensorList": "return out_[0].tensors();",
    }.get(ret)
    if tail is None:
        tail = "return {" + ", ".join(f"out_[{k}].tensor()" for k in range(len(op.returns))) + "};"
    return (
        f"  static const OpDef& op_def_ = OpRegistry::Get({_cpp_string(op.full_name)});\n"
        f"  [[maybe_unused]] const Schema& spec_ = op_def_.schema();\n"
        f"  std::vector<Value> out_ = Dispatch(op_def_, {{{values}}});\n"
        f"  {tail}\n"
    )


def _global(cpp_type: str) -> str:
    """``std::`` names written ``::std::`` (an op named "std" is a namespace in ``arg``)."""
    return re.sub(r"(?<![:\w])std::", "::std::", cpp_type)


def _cpp_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


_HEADER_TOP = """\
// Generated by ops/api/gen_ops_api.py from the op declarations in ops/defs: do not edit.
//
// oneflow::ops::<op>(...) runs an op with typed arguments in schema order; oneflow::arg::<op>::<name>
// is the index of an argument, for OpCall and BackwardCtx. "sum.dim" is sum_dim, "add_" is add_.

#ifndef OPS_API_OPS_H_
#define OPS_API_OPS_H_

#include <array>
#include <optional>
#include <string>

#include "ops/api/arg_types.h"

namespace oneflow {
"""


def generate(schemas: list[str]) -> tuple[str, str]:
    ops = [parse(s) for s in schemas]
    seen: dict[str, str] = {}
    for op in ops:
        if op.cpp_name in seen:
            raise ValueError(f"{op.full_name!r} and {seen[op.cpp_name]!r} both map to {op.cpp_name}")
        seen[op.cpp_name] = op.full_name
    h = [_HEADER_TOP, "namespace ops {\n"]
    for op in ops:
        h.append(f"\n// {op.schema}\n{_signature(op, True)};\n")
    h.append("\n}  // namespace ops\n\nnamespace arg {\n")
    for op in ops:
        h.append(f"namespace {op.cpp_name} {{\n")
        for i, a in enumerate(op.args):
            h.append(f"inline constexpr ArgRef<{_global(a.value_type())}> {a.cpp_name}{{{i}}};\n")
        h.append(f"}}  // namespace {op.cpp_name}\n")
    h.append("}  // namespace arg\n\n")
    h.append("// Every schema above, in declaration order (//ops/api:ops_api_test compares them with\n")
    h.append("// the registry).\n")
    h.append(f"extern const char* const kApiSchemas[{len(ops)}];\n\n")
    h.append("}  // namespace oneflow\n\n#endif  // OPS_API_OPS_H_\n")

    c = [
        "// Generated by ops/api/gen_ops_api.py: do not edit.\n\n",
        '#include "ops/api/ops.h"\n\n',
        '#include "core/framework/dispatch.h"\n\n',
        "namespace oneflow {\n\nconst char* const kApiSchemas[] = {\n",
    ]
    c += [f"    {_cpp_string(op.schema)},\n" for op in ops]
    c.append("};\n\nnamespace ops {\n")
    for op in ops:
        c.append(f"\n{_signature(op, False)} {{\n{_body(op)}}}\n")
    c.append("\n}  // namespace ops\n}  // namespace oneflow\n")
    return "".join(h), "".join(c)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--preprocessed", required=True)
    p.add_argument("--header", required=True)
    p.add_argument("--source", required=True)
    a = p.parse_args()
    with open(a.preprocessed, encoding="utf-8") as f:
        schemas = schema_scan.schemas(f.read())
    header, source = generate(schemas)
    for path, text in ((a.header, header), (a.source, source)):
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
