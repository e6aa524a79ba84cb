#!/usr/bin/python3
"""Integrators are registered in one place, core/integrators/integrators.def (docs/DESIGN.md,
"Integrators"): outside core/integrators/ no code tests for one integrator by its enumerator
(`IntegratorKind::Wavefront`) nor spells out a list of their names, so that adding an integrator
is a line there, its files and its registry entry, not a search through the tree.

    integrator_registration_test.py SOURCE_DIR"""
import pathlib
import re
import sys
import unittest

SOURCE = pathlib.Path(sys.argv[1]).resolve()
ENUMERATOR = re.compile(r"IntegratorKind::[A-Z]")


def sources():
    for folder in ("core", "cli"):
        for path in sorted((SOURCE / folder).rglob("*")):
            if path.suffix in (".cpp", ".h") and SOURCE / "core" / "integrators" not in path.parents:
                yield path


def names():
    """The names integrators.def registers."""
    text = (SOURCE / "core" / "integrators" / "integrators.def").read_text()
    return re.findall(r'^PTBENCH_INTEGRATOR\(\w+, "([^"]+)"', text, re.MULTILINE)


class IntegratorRegistration(unittest.TestCase):
    def test_the_registration_names_every_integrator(self):
        self.assertEqual(names(), ["megakernel", "megakernel-regen", "megakernel-ser", "wavefront", "raycast"])

    def test_no_enumerator_outside_the_integrators_room(self):
        found = [f"{path.relative_to(SOURCE)}:{n}: {line.strip()}"
                 for path in sources()
                 for n, line in enumerate(path.read_text().splitlines(), 1) if ENUMERATOR.search(line)]
        self.assertEqual(found, [], "test a trait of IntegratorTraits instead (core/integrators/integrator.h)")

    def test_no_list_of_names_outside_the_integrators_room(self):
        # Two registered names one after the other in a list ("a, b" or "a or b"): a list kept by hand.
        name = "|".join(re.escape(n) for n in sorted(names(), key=len, reverse=True))
        listed = re.compile(rf"\b({name})\b(?: \([^)]*\))?(?:, | or | and )({name})\b")
        found = [f"{path.relative_to(SOURCE)}:{n}: {line.strip()}"
                 for path in sources()
                 for n, line in enumerate(path.read_text().splitlines(), 1) if listed.search(line)]
        self.assertEqual(found, [], "make the list with integratorNameList (core/integrators/integrator.h)")

if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
