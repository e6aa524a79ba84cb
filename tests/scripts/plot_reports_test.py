#!/usr/bin/python3
"""scripts/plot.py before it draws: without matplotlib or numpy it says which to install, in one
line, exit 2. Runs without either (their absence is simulated)."""
import pathlib
import subprocess
import sys
import tempfile
import unittest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "plot.py"

# Runs the script with one package made unimportable (sys.argv[1]); a stand-in matplotlib in
# sys.argv[2], if given, imports numpy as the real one does.
WITHOUT = r"""
import importlib.abc, runpy, sys
missing, stand_in, script = sys.argv[1:4]
class Missing(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == missing:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Missing())
if stand_in:
    sys.path.insert(0, stand_in)
sys.argv = [script] + sys.argv[4:]
runpy.run_path(script, run_name="__main__")
"""


def plot_without(package, *args):
    with tempfile.TemporaryDirectory() as scratch:
        stand_in = ""
        if package == "numpy":
            stand_in = pathlib.Path(scratch)
            (stand_in / "matplotlib").mkdir()
            (stand_in / "matplotlib" / "__init__.py").write_text("import numpy\n")
        return subprocess.run([sys.executable, "-c", WITHOUT, package, str(stand_in), str(SCRIPT), *args],
                              capture_output=True, text=True, timeout=30)


class MissingPackages(unittest.TestCase):
    def test_a_missing_package_is_one_line_naming_it_and_how_to_install_it(self):
        for package, args in (("matplotlib", ()), ("numpy", ()), ("matplotlib", ("report.json",))):
            with self.subTest(package=package, args=args):
                result = plot_without(package, *args)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertEqual(result.stdout, "")
                lines = result.stderr.splitlines()
                self.assertEqual(len(lines), 1, result.stderr)
                self.assertIn(f"Python package {package} is missing", lines[0])
                self.assertIn(f"apt-get install python3-{package}", lines[0])
                self.assertIn("scripts/setup.sh", lines[0])


if __name__ == "__main__":
    unittest.main()
