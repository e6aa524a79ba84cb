#!/usr/bin/env python3
"""Counts what one stage of scripts/test.sh checked, from the file its runner wrote.

  count_tests.py junit FILE [SUITES]   CTest's --output-junit; a CTest test `Suite.*` ran a
                                       whole GoogleTest suite (cmake/GTestSuites.cmake), whose
                                       tests are counted from its report SUITES/Suite.xml
  count_tests.py gtest FILE            a GoogleTest binary's --gtest_output=xml:FILE
  count_tests.py verify FILE           `ptbench verify --json FILE`

Prints "PASSED FAILED SKIPPED" on the first line, then one line per skipped or failed check
with why (a skip is never silent), for test.sh to add up and show.
"""
import json
import os
import sys
import xml.etree.ElementTree as ElementTree

DISABLED = "disabled: a benchmark run by hand, see its comment"


class Count:
    def __init__(self):
        self.passed, self.failed, self.skipped, self.failures = 0, 0, [], []

    def add(self, other):
        self.passed += other.passed
        self.failed += other.failed
        self.skipped += other.skipped
        self.failures += other.failures

    def fail(self, note):
        self.failed += 1
        self.failures.append(f"failed: {note}")


def skip_reason(output):
    # GoogleTest prints "file:line: Skipped" and the reason on the lines after it; a script test
    # that exits with CTest's skip code prints "SKIPPED: reason".
    lines = output.splitlines()
    for i, line in enumerate(lines):
        if line.endswith(": Skipped") and i + 1 < len(lines):
            return lines[i + 1].strip()
        if line.startswith("SKIPPED: "):
            return line[len("SKIPPED: "):].strip()
    return ""


def junit(path, suites=None):
    count = Count()
    for case in ElementTree.parse(path).getroot().iter("testcase"):
        name = case.get("name", "").split("  #")[0]
        status = case.get("status", "")
        failed = case.find("failure") is not None or status == "fail"
        if name.endswith(".*") and suites is not None:
            report = os.path.join(suites, name[:-2].replace("/", "_") + ".xml")
            if not os.path.exists(report):
                count.fail(f"{name} (its process wrote no report: it died; its output is above)")
                continue
            suite = gtest(report)
            count.add(suite)
            if failed and suite.failed == 0:
                count.fail(f"{name} (its tests passed, its process did not; its output is above)")
        elif failed:
            count.fail(name)
        elif status == "disabled":
            count.skipped.append(f"skipped: {name} ({DISABLED})")
        elif case.find("skipped") is not None or status == "notrun":
            reason = skip_reason(case.findtext("system-out") or "") or "not run"
            count.skipped.append(f"skipped: {name} ({reason})")
        else:
            count.passed += 1
    return count


def gtest(path):
    count = Count()
    for case in ElementTree.parse(path).getroot().iter("testcase"):
        name = f"{case.get('classname')}.{case.get('name')}"
        skipped = case.find("skipped")
        if case.find("failure") is not None:
            count.fail(name)
        elif case.get("result") == "suppressed":
            count.skipped.append(f"skipped: {name} ({DISABLED})")
        elif skipped is not None or case.get("status") == "notrun":
            # GoogleTest's message is "file:line" and the reason on the lines after it.
            message = (skipped.get("message", "") if skipped is not None else "").strip().splitlines()
            reason = message[-1] if len(message) > 1 else "no reason given"
            count.skipped.append(f"skipped: {name} ({reason})")
        else:
            count.passed += 1
    return count


def verify(path):
    report = json.load(open(path))
    count = Count()
    for result in report["results"]:
        if result["pass"]:
            count.passed += 1
        else:
            count.fail(f"{result['case']} ({result['integrator']}, {result['backend']})")
    count.skipped = [f"skipped: {s['integrator']} on {s['backend']} ({s['reason']})" for s in report["skipped"]]
    return count


def main():
    # Each kind's function and how many arguments it takes.
    kinds = {"junit": (junit, (1, 2)), "gtest": (gtest, (1,)), "verify": (verify, (1,))}
    kind, arguments = (sys.argv[1] if len(sys.argv) > 1 else ""), sys.argv[2:]
    if kind not in kinds or len(arguments) not in kinds[kind][1]:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        count = kinds[kind][0](*arguments)
    except (OSError, ValueError, KeyError, ElementTree.ParseError) as error:
        print(f"count_tests.py: {arguments[0]}: cannot count its tests: {error}", file=sys.stderr)
        return 2
    print(count.passed, count.failed, len(count.skipped))
    for note in count.skipped + count.failures:
        print(note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
