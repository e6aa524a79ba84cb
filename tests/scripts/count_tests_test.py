#!/usr/bin/python3
"""scripts/count_tests.py, which scripts/test.sh's closing line adds up: a CTest test `Suite.*`
counts its suite's tests from their GoogleTest XML report, not as one; a suite whose process died
(no report) or failed with every test passing counts as failed; skips keep their reasons and
disabled tests are skipped, never passed. Made-up files; no device."""
import pathlib
import subprocess
import tempfile
import unittest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "count_tests.py"

CTEST_JUNIT = """<testsuite>
  <testcase name="Died.*" status="fail"><failure/></testcase>
  <testcase name="Mixed.*" status="fail"><failure/></testcase>
  <testcase name="ProcessOnly.*" status="fail"><failure/></testcase>
  <testcase name="P/Param.*" status="run"/>
  <testcase name="Plain.one" status="run"/>
  <testcase name="Plain.DISABLED_two" status="disabled"/>
  <testcase name="BrowserScript" status="notrun"><skipped message="Skipped"/>
    <system-out>SKIPPED: no Chromium on this machine</system-out></testcase>
</testsuite>
"""

REPORTS = {
    "Mixed.xml": """<testsuites><testsuite name="Mixed">
  <testcase name="passes" classname="Mixed" status="run" result="completed"/>
  <testcase name="fails" classname="Mixed" status="run" result="completed"><failure message="no"/></testcase>
  <testcase name="skips" classname="Mixed" status="run" result="skipped">
    <skipped message="file.cpp:7&#x0A;the device lacks it"/></testcase>
  <testcase name="DISABLED_bench" classname="Mixed" status="notrun" result="suppressed"/>
</testsuite></testsuites>""",
    "ProcessOnly.xml": """<testsuites><testsuite name="ProcessOnly">
  <testcase name="passes" classname="ProcessOnly" status="run" result="completed"/>
</testsuite></testsuites>""",
    "P_Param.xml": """<testsuites><testsuite name="P/Param">
  <testcase name="Case/0" classname="P/Param" status="run" result="completed"/>
  <testcase name="Case/1" classname="P/Param" status="run" result="completed"/>
</testsuite></testsuites>""",
}


def count(*args):
    result = subprocess.run(["python3", str(SCRIPT), *args], capture_output=True, text=True, timeout=30)
    return result.returncode, result.stdout.splitlines(), result.stderr


class Suites(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.TemporaryDirectory()
        folder = pathlib.Path(self.scratch.name)
        (folder / "ctest.xml").write_text(CTEST_JUNIT)
        (folder / "suites").mkdir()
        for name, text in REPORTS.items():
            (folder / "suites" / name).write_text(text)
        self.folder = folder

    def tearDown(self):
        self.scratch.cleanup()

    def test_a_suite_counts_its_tests_and_a_dead_suite_fails(self):
        status, lines, _ = count("junit", str(self.folder / "ctest.xml"), str(self.folder / "suites"))
        self.assertEqual(status, 0)
        # Passed: Mixed.passes, ProcessOnly.passes, P/Param's two, Plain.one.
        # Failed: Died.* (no report), Mixed.fails, ProcessOnly.* (its process). Skipped: 4.
        self.assertEqual(lines[0], "5 3 4")
        self.assertIn("skipped: BrowserScript (no Chromium on this machine)", lines)
        self.assertIn("skipped: Mixed.skips (the device lacks it)", lines)
        self.assertIn("skipped: Mixed.DISABLED_bench (disabled: a benchmark run by hand, see its comment)", lines)
        self.assertIn("skipped: Plain.DISABLED_two (disabled: a benchmark run by hand, see its comment)", lines)
        self.assertIn("failed: Mixed.fails", lines)
        self.assertTrue(any(line.startswith("failed: Died.* (its process wrote no report") for line in lines), lines)
        self.assertTrue(any(line.startswith("failed: ProcessOnly.* (its tests passed") for line in lines), lines)

    def test_without_the_reports_folder_each_ctest_test_counts_once(self):
        status, lines, _ = count("junit", str(self.folder / "ctest.xml"))
        self.assertEqual((status, lines[0]), (0, "2 3 2"))

    def test_a_missing_file_or_wrong_arguments_exit_2(self):
        self.assertEqual(count("junit", str(self.folder / "none.xml"))[0], 2)
        self.assertEqual(count("gtest")[0], 2)
        self.assertEqual(count("verify", "a", "b")[0], 2)


if __name__ == "__main__":
    unittest.main()
