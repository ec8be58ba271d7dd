"""Counts the ops in the declaration registry.

    ./tools/bazel run //tools:ops_count

Prints the number of distinct ops in the registry (one per name; overloads of a
name not counted again), how many of them are public functions, in-place
variants and internal helper ops, and the number of schemas (every overload).
"""

from __future__ import annotations

import oneflow as flow


def counts() -> dict:
    names = [name for name, _, _ in flow._C.op_table]
    inplace = {name for name, _, is_inplace in flow._C.op_table if is_inplace}
    internal = {n for n in names if n.startswith("_") or n.endswith("_backward")}
    public = [n for n in names if n not in inplace and n not in internal]
    return {
        "distinct ops in the registry": len(names),
        "public ops": len(public),
        "in-place variants": len(inplace - internal),
        "internal helper ops": len(internal),
        "schemas (with overloads)": len(flow._C._op_schemas()),
    }


def main() -> None:
    for what, n in counts().items():
        print(f"{n:5d} {what}")


if __name__ == "__main__":
    main()
