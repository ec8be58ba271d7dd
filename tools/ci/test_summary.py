"""Totals the test cases of a `bazel test` run into one 'N passed, N failed' line.

Bazel reports targets; CI wants test cases. Every test target leaves a JUnit
test.xml under bazel-testlogs (pytest writes one per case, GoogleTest one per
TEST, and Bazel writes one of its own for a target that writes none).

    python3 tools/ci/test_summary.py bazel-testlogs
"""

from __future__ import annotations

import os
import sys
import xml.etree.ElementTree as ET


def count(xml_path: str) -> tuple[int, int, int]:
    """(passed, failed, skipped) test cases in one JUnit XML file."""
    try:
        root = ET.parse(xml_path).getroot()
    except ET.ParseError:
        return 0, 1, 0  # a truncated report means the target crashed
    passed = failed = skipped = 0
    for case in root.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        elif case.find("skipped") is not None or case.get("status") == "notrun":
            skipped += 1
        else:
            passed += 1
    if passed + failed + skipped == 0:  # a target-level report without cases
        suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
        bad = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
        return (0, 1, 0) if bad else (1, 0, 0)
    return passed, failed, skipped


def summarize(testlogs: str) -> tuple[int, int, int]:
    total = [0, 0, 0]
    for dirpath, _, files in os.walk(testlogs, followlinks=True):
        if "test.xml" in files:
            for i, n in enumerate(count(os.path.join(dirpath, "test.xml"))):
                total[i] += n
    return total[0], total[1], total[2]


def main(argv: list[str]) -> int:
    passed, failed, skipped = summarize(argv[1] if len(argv) > 1 else "bazel-testlogs")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
