"""The op schemas declared in ops/defs, read from their preprocessed source.

Every declaration reaches ``OpRegistry::Declare("schema")`` or ``DeclareWithInplace("schema")``
(which also declares the in-place twin, ``add_``) once the C preprocessor has expanded the macros
(``OF_OP``, ``OF_OP_WITH_INPLACE``, and file-local ones that stringize an op name), with the schema
as one or more adjacent string literals. A schema built at run time (``StrCat``) cannot be read:
//ops/api:ops_api_test checks that what this finds is exactly what the registry holds, so such a
declaration fails that test instead of going missing from the generated API.
"""

from __future__ import annotations

import re

_DECL = re.compile(r"\b(OpRegistry::Declare|DeclareWithInplace)\(\s*((?:\"(?:[^\"\\]|\\.)*\"\s*)+)\)")
_STRING = re.compile(r"\"((?:[^\"\\]|\\.)*)\"")


def inplace_schema(functional: str) -> str:
    """The in-place twin's schema, as ops/defs/common.cc's InplaceSchema writes it:
    "add(Tensor self, ...) -> Tensor" -> "add_(Tensor(a!) self, ...) -> Tensor(a!)"."""
    paren = functional.index("(")
    dot = functional.find(".")
    end = dot if 0 <= dot < paren else paren
    s = functional[:end] + "_" + functional[end:]
    s = s.replace("Tensor self", "Tensor(a!) self", 1)
    return s[: s.rindex("-> Tensor")] + "-> Tensor(a!)"


def schemas(preprocessed: str) -> list[str]:
    """Every schema declared in preprocessed C++ text, in-place twins included, in order."""
    out = []
    for m in _DECL.finditer(preprocessed):
        # The literals' contents with their escapes (\" in a default like mode="constant") undone.
        text = "".join(re.sub(r"\\(.)", r"\1", s.group(1)) for s in _STRING.finditer(m.group(2)))
        out.append(text)
        if m.group(1) == "DeclareWithInplace":
            out.append(inplace_schema(text))
    return out
