#!/usr/bin/env python3
"""scripts/manylights_gltf.py: the shipped scenes/ManyLights/ManyLights.gltf is what it writes,
byte for byte; other counts give that many light triangles; a count out of range is refused."""

import json
import pathlib
import subprocess
import sys
import tempfile
import unittest

SOURCE = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = SOURCE / "scripts" / "manylights_gltf.py"
SHIPPED = SOURCE / "scenes" / "ManyLights" / "ManyLights.gltf"


def light_triangles(document):
    lights = next(m for m in document["meshes"] if m["name"] == "lights")
    return sum(document["accessors"][p["attributes"]["POSITION"]]["count"] // 3 for p in lights["primitives"])


class ManyLightsGltf(unittest.TestCase):
    def write(self, *arguments):
        out = pathlib.Path(self.folder.name) / "scene.gltf"
        result = subprocess.run([sys.executable, str(SCRIPT), *arguments, str(out)], capture_output=True, text=True)
        return result, out

    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.folder.cleanup()

    def test_shipped_scene_is_what_the_script_writes(self):
        result, out = self.write("--lights", "1024", "--seed", "1")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(out.read_bytes(), SHIPPED.read_bytes(), "rerun the command in scenes/ManyLights/README.md")
        self.assertLess(SHIPPED.stat().st_size, 300_000)

    def test_writes_as_many_light_triangles_as_asked(self):
        for count in (1, 37):
            result, out = self.write("--lights", str(count))
            self.assertEqual(result.returncode, 0, result.stderr)
            document = json.loads(out.read_text())
            self.assertEqual(light_triangles(document), count)
            self.assertIn("KHR_materials_emissive_strength", document["extensionsUsed"])

    def test_refuses_counts_out_of_range(self):
        for count in ("0", "65537"):
            result, out = self.write("--lights", count)
            self.assertNotEqual(result.returncode, 0)
            self.assertIn("--lights must be from 1 to 65536", result.stderr)
            self.assertFalse(out.exists())


if __name__ == "__main__":
    unittest.main()
