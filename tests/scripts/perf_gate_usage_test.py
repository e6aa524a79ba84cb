#!/usr/bin/python3
"""scripts/gpu-perf-gate.sh's usage mistakes: a flag without its value prints the usage and exits 2
(undecided), never 1, which a CI job reads as a regression; a --report it cannot read is one line,
exit 2. No GPU: it stops before measuring."""
import gzip
import json
import os
import pathlib
import subprocess
import tempfile
import unittest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "gpu-perf-gate.sh"


def gate(*args):
    with tempfile.TemporaryDirectory() as scratch:
        # Were it to measure, the missing binary would exit 3, not 2; nothing is written here.
        environment = dict(os.environ, PTBENCH=os.path.join(scratch, "no-ptbench"), PERF_GATE_BASELINES=scratch,
                           TMPDIR=scratch)
        return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, env=environment,
                              timeout=30)


class Usage(unittest.TestCase):
    def test_a_flag_without_its_value_prints_the_usage_and_exits_2(self):
        for args, flag in ((["--report"], "--report"), (["--out"], "--out"),
                           (["--update-baseline", "--report"], "--report"),
                           (["--report", "--update-baseline"], "--report"), (["--report", ""], "--report"),
                           (["--out", "--report", "new.json"], "--out")):
            with self.subTest(args=args):
                result = gate(*args)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(f"{flag} needs a value", result.stderr)
                self.assertIn("usage: gpu-perf-gate.sh", result.stderr)

    def test_help_still_prints_the_usage_and_exits_0(self):
        result = gate("--help")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("usage: gpu-perf-gate.sh", result.stdout)

    def test_a_report_that_is_not_there_is_named(self):
        result = gate("--report", "no-such-report.json")
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("no-such-report.json: no such report", result.stderr)

    def test_a_report_it_cannot_read_is_one_line_exit_2(self):
        with tempfile.TemporaryDirectory() as scratch:
            for name, text, phrase in (("text.json", "not json", "not a JSON report"),
                                       ("list.json", "[1, 2]", "the report names no device"),
                                       ("nameless.json", '{"device": "H100", "runs": []}', "the report names no device"),
                                       ("runless.json", '{"device": {"name": "H100"}, "runs": 3}', "the report has no runs list")):
                with self.subTest(name=name):
                    path = pathlib.Path(scratch) / name
                    path.write_text(text)
                    result = gate("--report", str(path))
                    self.assertEqual(result.returncode, 2, result.stderr)
                    lines = result.stderr.splitlines()
                    self.assertEqual(len(lines), 1, result.stderr)
                    self.assertTrue(lines[0].startswith(f"gpu-perf-gate: {path}: {phrase}"), result.stderr)

    def test_a_device_name_without_letters_or_digits_names_no_baseline(self):
        # Its slug was empty: the gate looked for results/baselines//report.json and, with
        # --update-baseline, wrote one there.
        with tempfile.TemporaryDirectory() as scratch:
            path = pathlib.Path(scratch) / "symbols.json"
            path.write_text('{"device": {"name": "@@@"}, "runs": []}')
            for extra in ([], ["--update-baseline"]):
                with self.subTest(extra=extra):
                    result = gate("--report", str(path), *extra)
                    self.assertEqual(result.returncode, 2, result.stderr)
                    self.assertIn('its device name "@@@" has no letter or digit', result.stderr)

    def test_a_newline_in_the_device_name_stays_in_its_baseline_folder(self):
        # The name was printed as it is: its second line became the slug (../../escaped).
        with tempfile.TemporaryDirectory() as scratch:
            report = pathlib.Path(scratch) / "new.json"
            report.write_text(json.dumps({"device": {"name": "Fake GPU\n../../escaped\n0"}, "runs": [{"status": "ok"}]}))
            baselines = pathlib.Path(scratch) / "a" / "baselines"
            environment = dict(os.environ, PTBENCH=os.path.join(scratch, "no-ptbench"), PERF_GATE_BASELINES=str(baselines))
            result = subprocess.run(["bash", str(SCRIPT), "--report", str(report), "--update-baseline"],
                                    capture_output=True, text=True, env=environment, timeout=30)
            self.assertEqual(result.returncode, 0, result.stderr)
            written = sorted(str(p.relative_to(scratch)) for p in pathlib.Path(scratch).rglob("report.json.gz"))
            self.assertEqual(written, ["a/baselines/fake-gpu-escaped-0/report.json.gz"], result.stdout)

    def test_update_baseline_keeps_it_gzipped_and_reads_it_so(self):
        with tempfile.TemporaryDirectory() as scratch:
            report = pathlib.Path(scratch) / "new.json"
            report.write_text('{"device": {"name": "Some GPU 9"}, "runs": [{"status": "ok"}]}')
            environment = dict(os.environ, PTBENCH=os.path.join(scratch, "no-ptbench"),
                               PERF_GATE_BASELINES=os.path.join(scratch, "baselines"))
            result = subprocess.run(["bash", str(SCRIPT), "--report", str(report), "--update-baseline"],
                                    capture_output=True, text=True, env=environment, timeout=30)
            self.assertEqual(result.returncode, 0, result.stderr)
            baseline = pathlib.Path(scratch) / "baselines" / "some-gpu-9" / "report.json.gz"
            self.assertEqual(json.loads(gzip.decompress(baseline.read_bytes()))["device"]["name"], "Some GPU 9")
            # A gzipped report is read as one, and promoted without a second gzip.
            again = subprocess.run(["bash", str(SCRIPT), "--report", str(baseline), "--update-baseline"],
                                   capture_output=True, text=True, env=environment, timeout=30)
            self.assertIn("is now the baseline", again.stdout, again.stderr)
            self.assertEqual(json.loads(gzip.decompress(baseline.read_bytes()))["runs"], [{"status": "ok"}])


if __name__ == "__main__":
    unittest.main()
