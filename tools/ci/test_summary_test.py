"""test_summary counts pytest, GoogleTest and Bazel's own reports correctly."""

import os
import tempfile

import test_summary

PYTEST = """<?xml version="1.0"?><testsuites><testsuite name="pytest" tests="4">
<testcase name="a"/><testcase name="b"><failure message="x"/></testcase>
<testcase name="c"><skipped/></testcase><testcase name="d"><error message="e"/></testcase>
</testsuite></testsuites>"""
GTEST = """<?xml version="1.0"?><testsuites tests="2"><testsuite name="S" tests="2">
<testcase name="t1" status="run"/><testcase name="t2" status="notrun"/></testsuite></testsuites>"""
BAZEL_FAILED = """<?xml version="1.0"?><testsuites><testsuite name="t" tests="1" failures="1" errors="0">
</testsuite></testsuites>"""


def test_counts_cases_across_reports():
    with tempfile.TemporaryDirectory() as d:
        for i, text in enumerate([PYTEST, GTEST, BAZEL_FAILED, "<testsuites><testsuite"]):
            os.makedirs(os.path.join(d, f"t{i}"))
            with open(os.path.join(d, f"t{i}", "test.xml"), "w") as f:
                f.write(text)
        assert test_summary.summarize(d) == (2, 4, 2)
