#!/usr/bin/python3
"""The sweep scripts refuse an output folder that holds an earlier sweep: scripts/slurm/submit.sh
and scripts/run-on-all-gpus.sh an OUTDIR that holds files, scripts/slurm/sweep.sbatch a shard
folder that holds a report unless Slurm requeued the task (then it resumes it). Before, a reused
folder had the new sweep resume the old one's shards and never run, or merge the old shard and
drop the new one. No GPU, no Slurm: ptbench and sbatch are stand-ins that record their
arguments."""
import os
import pathlib
import subprocess
import tempfile
import unittest

SCRIPTS = pathlib.Path(__file__).resolve().parents[2] / "scripts"


def stand_in(folder, name):
    """A program that appends its arguments to FOLDER/NAME.calls and prints what sbatch would."""
    path = pathlib.Path(folder) / name
    path.write_text(f'#!/bin/sh\necho "$@" >> "{folder}/{name}.calls"\necho 1\n')
    path.chmod(0o755)
    return path


def calls(folder, name):
    path = pathlib.Path(folder) / f"{name}.calls"
    return path.read_text().splitlines() if path.exists() else []


class SweepFolders(unittest.TestCase):
    def run_script(self, scratch, args, **environment):
        bin_dir = pathlib.Path(scratch) / "bin"
        bin_dir.mkdir(exist_ok=True)
        ptbench = stand_in(bin_dir, "ptbench")
        stand_in(bin_dir, "sbatch")
        env = dict(os.environ, PTBENCH=str(ptbench), PATH=f"{bin_dir}:{os.environ['PATH']}", **environment)
        return subprocess.run(["bash", *map(str, args)], capture_output=True, text=True, env=env, timeout=30), bin_dir

    def earlier_sweep(self, scratch):
        out = pathlib.Path(scratch) / "sweep"
        report = out / "shard1" / "ci" / "20261201T000000Z" / "report.json"
        report.parent.mkdir(parents=True)
        report.write_text("{}")
        return out

    def test_submit_refuses_a_folder_that_holds_files(self):
        with tempfile.TemporaryDirectory() as scratch:
            out = self.earlier_sweep(scratch)
            result, bins = self.run_script(scratch, [SCRIPTS / "slurm" / "submit.sh", "config.json", out])
            self.assertEqual(result.returncode, 1, result.stderr)
            self.assertIn(f"{out} holds files", result.stderr)
            self.assertEqual(calls(bins, "sbatch"), [], "nothing submitted")

    def test_run_on_all_gpus_refuses_a_folder_that_holds_files(self):
        with tempfile.TemporaryDirectory() as scratch:
            out = self.earlier_sweep(scratch)
            result, bins = self.run_script(scratch, [SCRIPTS / "run-on-all-gpus.sh", "config.json"],
                                           PTBENCH_OUT=str(out), PTBENCH_DEVICES="0")
            self.assertEqual(result.returncode, 1, result.stderr)
            self.assertIn(f"{out} holds files", result.stderr)
            self.assertEqual(calls(bins, "ptbench"), [], "nothing run")

    def test_a_shard_resumes_only_when_slurm_requeued_it(self):
        with tempfile.TemporaryDirectory() as scratch:
            out = self.earlier_sweep(scratch)
            task = {"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "2"}
            first, bins = self.run_script(scratch, [SCRIPTS / "slurm" / "sweep.sbatch", "config.json", out], **task)
            self.assertEqual(first.returncode, 1, first.stderr)
            self.assertIn("already holds a sweep's results", first.stderr)
            self.assertEqual(calls(bins, "ptbench"), [], "neither resumed nor run")
            requeued, bins = self.run_script(scratch, [SCRIPTS / "slurm" / "sweep.sbatch", "config.json", out],
                                             SLURM_RESTART_COUNT="1", **task)
            self.assertEqual(calls(bins, "ptbench")[0].split()[:2], ["run", "--resume"], requeued.stderr)


if __name__ == "__main__":
    unittest.main()
