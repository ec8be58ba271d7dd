"""Runs pytest on the files Bazel names, reporting each case in Bazel's test.xml."""

import os
import sys

import pytest


def main() -> int:
    args = ["-q", "-p", "no:cacheprovider", "--import-mode=append",
            "-W", "error::pytest.PytestUnraisableExceptionWarning"]
    xml = os.environ.get("XML_OUTPUT_FILE")
    if xml:
        args.append("--junitxml=" + xml)
    # A filter given through `bazel test --test_filter=...` selects test cases.
    test_filter = os.environ.get("TESTBRIDGE_TEST_ONLY")
    if test_filter:
        args += ["-k", test_filter]
    return pytest.main(args + sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
