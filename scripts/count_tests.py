#!/usr/bin/env python3
"""Counts what one stage of scripts/test.sh checked, from the file its runner wrote.

  count_tests.py junit FILE     CTest's --output-junit
  count_tests.py gtest FILE     a GoogleTest binary's --gtest_output=json:FILE
  count_tests.py verify FILE    `ptbench verify --json FILE`

Prints "PASSED FAILED SKIPPED" on the first line, then one line per skipped or failed check
with why (a skip is never silent), for test.sh to add up and show.
"""
import json
import sys
import xml.etree.ElementTree as ElementTree


def skip_reason(output):
    # GoogleTest prints "file:line: Skipped" and the reason on the lines after it.
    lines = output.splitlines()
    for i, line in enumerate(lines):
        if line.endswith(": Skipped") and i + 1 < len(lines):
            return lines[i + 1].strip()
    return ""


def junit(path):
    passed, failed, skipped, notes = 0, 0, [], []
    for case in ElementTree.parse(path).getroot().iter("testcase"):
        name = case.get("name", "").split("  #")[0]
        status = case.get("status", "")
        output = case.findtext("system-out") or ""
        if case.find("failure") is not None or status == "fail":
            failed += 1
            notes.append(f"failed: {name}")
        elif status == "disabled":
            skipped.append(f"skipped: {name} (disabled: a benchmark run by hand, see its comment)")
        elif case.find("skipped") is not None or status == "notrun":
            skipped.append(f"skipped: {name} ({skip_reason(output) or 'not run'})")
        else:
            passed += 1
    return passed, failed, len(skipped), skipped + notes


def gtest(path):
    passed, failed, skipped, notes = 0, 0, [], []
    for suite in json.load(open(path))["testsuites"]:
        for case in suite["testsuite"]:
            name = f"{suite['name']}.{case['name']}"
            if case.get("failures"):
                failed += 1
                notes.append(f"failed: {name}")
            elif case.get("result") == "SKIPPED":
                message = (case.get("skipped") or [{}])[0].get("message", "").strip().splitlines()
                skipped.append(f"skipped: {name} ({message[-1] if message else 'no reason given'})")
            else:
                passed += 1
    return passed, failed, len(skipped), skipped + notes


def verify(path):
    report = json.load(open(path))
    passed = sum(1 for result in report["results"] if result["pass"])
    failed = len(report["results"]) - passed
    notes = [f"failed: {r['case']} ({r['integrator']}, {r['backend']})" for r in report["results"] if not r["pass"]]
    skipped = [f"skipped: {s['integrator']} on {s['backend']} ({s['reason']})" for s in report["skipped"]]
    return passed, failed, len(skipped), skipped + notes


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("junit", "gtest", "verify"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        passed, failed, skipped, notes = {"junit": junit, "gtest": gtest, "verify": verify}[sys.argv[1]](sys.argv[2])
    except (OSError, ValueError, KeyError, ElementTree.ParseError) as error:
        print(f"count_tests.py: {sys.argv[2]}: cannot count its tests: {error}", file=sys.stderr)
        return 2
    print(passed, failed, skipped)
    for note in notes:
        print(note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
