#!/usr/bin/python3
"""configs/schema.json says what `ptbench validate` says: an editor that checks a config against
the schema must neither flag a config the program runs nor pass one it refuses.

    config_schema_test.py PTBENCH

The program is the judge, not a second list kept here: the C++ registries (an integrator's
options in core/integrators/registry.cpp, a backend's in its descriptor under core/trace/) are
what a config is checked against, and a list copied into this test would go stale as quietly as
the schema did. So every case is given to both `ptbench validate` and jsonschema (the validator
the schema's own $schema names), and they must agree:

- every shipped configs/*.json (configs/paths/ holds camera paths, which `camera.path` and
  `reference --camera-path` read: they are checked against the schema's cameraPath instead);
- wrong configs, which both must refuse, so that agreement cannot come from accepting anything:
  an unknown top-level key, a wrong type, an unknown integrator option, an unknown owner of
  options, a value out of range;
- the integrators and backends: the schema's are those validate's complaint about an unknown one
  lists, and options holds an object for each;
- every integrator and backend option. The program's names come from probing it: a config that
  gives every candidate name to every owner (each value null, which no option takes) draws
  "expected ..." for a name the owner knows and "unknown option" or "has no options" for one it
  does not. The candidates are the schema's names, the names `validate` lists in its complaint
  about an unknown option, and those `render --help` describes under --option (the complaint
  about a backend's unknown option names only its first). Each owner's known names must be the
  schema's, and every value the schema lists (its enums, true and false, an integer range's ends)
  must be accepted by both, a value beyond them refused by both; an option's enum must be the
  values the program's "expected ..." for it lists.

Exit 77 (CTest's skip) with the reason when jsonschema cannot be imported."""
import copy
import functools
import json
import pathlib
import re
import subprocess
import sys
import tempfile
import unittest

try:
    import jsonschema
except ImportError:
    print("SKIPPED: the Python module jsonschema is missing; Debian's `python3-jsonschema` package provides it")
    sys.exit(77)

PTBENCH = pathlib.Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else None
SOURCE = pathlib.Path(__file__).resolve().parents[2]
CONFIGS = SOURCE / "configs"
SCHEMA = json.loads((CONFIGS / "schema.json").read_text())
BASE = {"schema_version": 1, "name": "schema-test", "scenes": ["builtin:cornell"]}
UNKNOWN_NAME = "no_such_option"


def config(**keys):
    out = copy.deepcopy(BASE)
    out.update(keys)
    return out


@functools.cache
def config_validator():
    return schema_validator(SCHEMA)


def schema_validator(schema):
    cls = jsonschema.validators.validator_for(SCHEMA, default=None)
    if cls is None:
        raise AssertionError(f"jsonschema knows no validator for $schema {SCHEMA.get('$schema')!r}")
    cls.check_schema(schema)
    return cls(schema)


def enum_of(schema_node):
    """The values a sweepable option's schema lists: its single-value branch's enum."""
    for branch in schema_node.get("oneOf", []):
        if "enum" in branch:
            return branch["enum"]
    return None


def resolve(node):
    ref = node.get("$ref")
    if ref:
        assert ref.startswith("#/$defs/"), ref
        return SCHEMA["$defs"][ref[len("#/$defs/"):]]
    return node


class Program:
    """`ptbench validate` over many files in one process: each file is `ok` on stdout or named in
    the problems on stderr."""

    def __init__(self, folder):
        self.folder = folder
        self.count = 0

    def write(self, instance):
        self.count += 1
        path = self.folder / f"case{self.count:04d}.json"
        path.write_text(json.dumps(instance))
        return path

    def validate(self, paths):
        # From the repository root: shipped configs' scene paths resolve beside them or from there.
        result = subprocess.run([str(PTBENCH), "validate", *map(str, paths)], capture_output=True, text=True,
                                cwd=SOURCE, timeout=300)
        verdicts = {}
        for path in paths:
            ok = f"{path}: ok" in result.stdout
            problems = [line.split(f"{path}: ", 1)[1] for line in result.stderr.splitlines() if f"{path}: " in line]
            if ok == bool(problems):
                raise AssertionError(f"ptbench validate said neither ok nor what is wrong of {path} (or both):\n"
                                     f"{result.stdout}{result.stderr}")
            verdicts[path] = problems
        return verdicts


@unittest.skipIf(PTBENCH is None, "give the ptbench binary as the first argument")
class SchemaAgreesWithValidate(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="ptbench-schema-")
        cls.program = Program(pathlib.Path(cls.tmp.name))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def agree(self, cases):
        """cases: (what, instance or shipped path, accepted?). Both judges must give that verdict."""
        paths = [case if isinstance(case, pathlib.Path) else self.program.write(case) for _, case, _ in cases]
        verdicts = self.program.validate(paths)
        for (what, case, expected), path in zip(cases, paths):
            instance = json.loads(path.read_text())
            errors = [f"/{'/'.join(map(str, e.absolute_path))}: {e.message}"
                      for e in config_validator().iter_errors(instance)]
            with self.subTest(what):
                self.assertEqual(not verdicts[path], expected,
                                 f"ptbench validate {'refused' if verdicts[path] else 'accepted'} {what}: "
                                 f"{verdicts[path]}")
                self.assertEqual(not errors, expected,
                                 f"the schema {'refused' if errors else 'accepted'} {what}: {errors}")

    def test_the_schema_is_one_jsonschema_reads_by_its_own_draft(self):
        config_validator()

    def test_shipped_configs_are_accepted_by_both(self):
        shipped = sorted(p for p in CONFIGS.glob("*.json") if p.name != "schema.json")
        self.assertGreater(len(shipped), 5)
        self.agree([(p.name, p, True) for p in shipped])

    def test_camera_path_files_match_the_schemas_camera_path(self):
        paths = sorted((CONFIGS / "paths").glob("*.json"))
        self.assertTrue(paths)
        camera_path = schema_validator({"$schema": SCHEMA["$schema"], "$defs": SCHEMA["$defs"],
                                        "$ref": "#/$defs/cameraPath"})
        for path in paths:
            with self.subTest(path.name):
                errors = [e.message for e in camera_path.iter_errors(json.loads(path.read_text()))]
                self.assertEqual(errors, [])

    def test_wrong_configs_are_refused_by_both(self):
        self.agree([
            ("the smallest config", config(), True),
            ("an unknown top-level key", config(samples=4), False),
            ("spp as a word", config(spp="many"), False),
            ("width past 16384", config(width=[64, 16385]), False),
            ("repeats past 100000", config(repeats=100001), False),
            ("an unknown integrator", config(integrators=["pathtracer"]), False),
            ("an unknown backend", config(backends="optix"), False),
            ("restir on megakernel-regen, which has no ReSTIR",
             config(options={"megakernel-regen": {"restir": "di"}}), False),
            ("an unknown wavefront option", config(options={"wavefront": {"queues": True}}), False),
            ("options of no integrator or backend", config(options={"pathtracer": {}}), False),
            ("an option of the rayquery backend, which has none", config(options={"rayquery": {"software_bvh": "bvh2"}}),
             False),
            ("a software_bvh layout there is none of", config(options={"software": {"software_bvh": "bvh4"}}), False),
            ("an empty sweep of an option", config(options={"wavefront": {"schedule": []}}), False),
        ])

    def program_lists(self):
        """The integrators and backends validate's complaints about unknown ones list."""
        path = self.program.write(config(integrators="no-such", backends="no-such"))
        problems = self.program.validate([path])[path]
        lists = {}
        for key in ("integrators", "backends"):
            line = next((p for p in problems if p.startswith(f"/{key}:")), None)
            self.assertIsNotNone(line, problems)
            lists[key] = re.search(r"accepted: (.*)$", line).group(1).split(", ")
        return lists

    def test_integrators_and_backends_are_the_programs(self):
        lists = self.program_lists()
        for key in ("integrators", "backends"):
            with self.subTest(key):
                self.assertEqual(sorted(enum_of(SCHEMA["properties"][key])), sorted(lists[key]))
        lists = {key: [name for name in names if name not in ("all", "auto")] for key, names in lists.items()}
        owners = lists["integrators"] + lists["backends"]
        self.assertEqual(sorted(SCHEMA["properties"]["options"]["properties"]), sorted(owners),
                         "options has one object per integrator and backend")

    def help_option_names(self):
        result = subprocess.run([str(PTBENCH), "render", "--help"], capture_output=True, text=True, cwd=SOURCE,
                                timeout=60)
        block = re.search(r"^\s*--option\b.*?(?=^\s*--(?!option))", result.stdout, re.S | re.M)
        return set(re.findall(r"^\s+([a-z][a-z0-9_]*) \(", block.group(0), re.M)) if block else set()

    def test_every_option_the_program_knows_the_schema_describes(self):
        options = SCHEMA["properties"]["options"]["properties"]
        owners = sorted(options)
        schema_names = {owner: set(options[owner].get("properties", {})) for owner in owners}
        # A first probe: every owner's complaint about a name it lacks lists the names it has.
        path = self.program.write(config(options={owner: {UNKNOWN_NAME: None} for owner in owners}))
        listed = set()
        for problem in self.program.validate([path])[path]:
            if found := re.search(r"; it has (.*), got ", problem):
                listed.update(found.group(1).split(", "))
        help_names = self.help_option_names()
        self.assertTrue(help_names, "render --help lists no options under --option")
        candidates = set().union(*schema_names.values()) | listed | help_names | {UNKNOWN_NAME}

        # The second: every candidate to every owner; a name the owner knows draws "expected ...".
        path = self.program.write(config(options={owner: {name: None for name in sorted(candidates)}
                                                  for owner in owners}))
        problems = self.program.validate([path])[path]
        program_names = {owner: set() for owner in owners}
        accepted = {}
        for owner in owners:
            for name in candidates:
                said = [p for p in problems if p.startswith(f"/options/{owner}/{name}: ")]
                self.assertEqual(len(said), 1, f"{owner}.{name}: {said}")
                if not re.search(r"unknown option|has no options", said[0]):
                    program_names[owner].add(name)
                    accepted[owner, name] = re.search(r": expected (.*), got null$", said[0]).group(1)
        for owner in owners:
            with self.subTest(owner):
                self.assertNotIn(UNKNOWN_NAME, program_names[owner], "the probe cannot tell known names from unknown")
                self.assertEqual(sorted(schema_names[owner]), sorted(program_names[owner]))

        # Every value the schema names for an option, as one sweep, and a value beyond them.
        cases = []
        for owner in owners:
            for name, node in sorted(options[owner].get("properties", {}).items()):
                node = resolve(node)
                single = resolve(node["oneOf"][0])
                if "oneOf" in single:  # a constant beside a range (restir_gi_jacobian: 0, or 1 to 1000)
                    constant, span = single["oneOf"]
                    good, bad = [constant["const"], span["minimum"], span["maximum"]], span["maximum"] + 1
                elif "enum" in single:
                    good, bad = single["enum"], "no-such-value"
                    # "expected off, di, gi or di+gi": the program's own list of the values.
                    with self.subTest(f"{owner}.{name}'s values"):
                        self.assertEqual(sorted(good), sorted(re.split(r", | or ", accepted[owner, name])))
                elif single.get("type") == "boolean":
                    good, bad = [True, False], "yes"
                elif single.get("type") in ("integer", "number"):
                    good, bad = [single["minimum"], single["maximum"]], single["maximum"] + 1
                else:
                    self.fail(f"options.{owner}.{name}: no values to try in {single}")
                cases.append((f"options.{owner}.{name}: {good}", config(options={owner: {name: good}}), True))
                cases.append((f"options.{owner}.{name}: {bad!r}", config(options={owner: {name: bad}}), False))
                cases.append((f"options.{owner}.{name}: {good[0]!r} alone",
                               config(options={owner: {name: good[0]}}), True))
        self.agree(cases)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
