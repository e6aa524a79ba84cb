#!/usr/bin/python3
"""The HTML report in a real browser (headless Chromium, scripts/browser_check.py): the default
run's report.html, a compare page, a history page, a run's with convergence curves and a page of
a report kept gzipped without its images load with no console error and no network
request; every chart drew with the series its data asks for; every image decoded; the verdict
table's numbers are report.json's; the images of a scene zoom and switch to their differences
together, from the keyboard. Screenshots go to the folder given as the third argument.

    html_report_browser_test.py PTBENCH SOURCE_DIR SCREENSHOT_DIR

Exit 77 (CTest's skip) with the reason when Chromium is missing."""
import copy
import gzip
import json
import math
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

PTBENCH, SOURCE, SHOTS = (pathlib.Path(arg).resolve() for arg in sys.argv[1:4])
sys.path.insert(0, str(SOURCE / "scripts"))
import browser_check  # noqa: E402

# After the page has drawn: the first image group zoomed from the keyboard and switched to its
# differences, read back as every layer's transform and every tile's mode.
KEYBOARD = r"""
(() => {
  const group = document.querySelector(".image-group");
  group.focus();
  const press = (key) => group.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true }));
  press("+"); press("+"); press("ArrowRight"); press("d");
  const transforms = [...group.querySelectorAll(".layer")].map((layer) => layer.style.transform);
  const modes = [...group.querySelectorAll(".tile")].map((tile) => tile.classList.contains("showing-difference"));
  press("0"); press("d");
  const reset = [...group.querySelectorAll(".layer")].map((layer) => layer.style.transform);
  return { focused: document.activeElement === group, transforms, modes, reset };
})()
"""

# What a page says of its images, and the files it links.
IMAGES_AND_LINKS = r"""
(() => ({
  images: document.querySelector("#images") ? document.querySelector("#images").textContent : "",
  links: [...document.querySelectorAll("a[href]")].map((a) => a.getAttribute("href")).filter((h) => !h.startsWith("#")),
}))()
"""


def geometric_mean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


class HtmlReportInBrowser(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = pathlib.Path(tempfile.mkdtemp(prefix="ptbench-html-"))
        # The default config at a quarter of its size: the same runs, axes and page, half the time.
        run = subprocess.run([str(PTBENCH), "run", str(SOURCE / "configs" / "default.json"), "--set", "width=32",
                              "--set", "height=32", "--out", str(cls.dir), "--quiet"],
                             capture_output=True, text=True, timeout=900)
        if run.returncode != 0:
            raise AssertionError(f"ptbench run failed ({run.returncode}):\n{run.stderr}")
        cls.folder = next(cls.dir.glob("default/*/report.json")).parent
        cls.report = json.loads((cls.folder / "report.json").read_text())
        SHOTS.mkdir(parents=True, exist_ok=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def open_page(self, page, screenshot, script=None):
        probe = browser_check.check(page, SHOTS / screenshot, script=script)
        self.assertTrue(probe["ready"], "the page never set window.ptbenchReady")
        self.assertEqual(probe["errors"], [], "console errors or exceptions")
        self.assertEqual(probe["requests"], [], "network requests")
        self.assertGreater(len(probe["charts"]), 0)
        self.assertEqual(probe["canvases"], len(probe["charts"]), "a canvas that is not a listed chart")
        for chart in probe["charts"]:
            self.assertGreater(chart["series"], 0, chart["name"])
            self.assertTrue(all(points > 0 for points in chart["points"]), chart)
            self.assertTrue(chart["drawn"], f"chart {chart['name']} drew nothing")
        for image in probe["images"]:
            self.assertGreater(image["naturalWidth"], 0, f"image not decoded: {image}")
        self.assertLessEqual(probe["scrollWidth"], 1280, "the page is wider than 1280 px")
        return probe

    def chart(self, probe, name):
        found = [chart for chart in probe["charts"] if chart["name"] == name]
        self.assertEqual(len(found), 1, f"chart {name}: {[c['name'] for c in probe['charts']]}")
        return found[0]

    def test_the_default_runs_page(self):
        page = self.folder / "report.html"
        self.assertTrue(page.is_file(), "ptbench run wrote no report.html")
        self.assertLess(page.stat().st_size, 5 << 20, "a default-config page of more than 5 MB")
        probe = self.open_page(page, "report.png", KEYBOARD)
        runs = {run["id"]: run for run in self.report["runs"]}
        ok = [run for run in self.report["runs"] if run["status"] == "ok"]
        # The verdict: each line's ratio is its runs' median frame times over their megakernels'.
        verdict = probe["tables"]["verdict-table"]
        self.assertGreater(len(verdict), 0)
        for row in verdict:
            ids, megakernels = row["data"]["runIds"].split(), row["data"]["megakernelIds"].split()
            self.assertEqual(len(ids), len(megakernels))
            for run, megakernel in zip(ids, megakernels):
                self.assertEqual(runs[megakernel]["parameters"]["integrator"], "megakernel")
                for key in ("scene", "backend", "width", "height", "spp"):
                    self.assertEqual(runs[run]["parameters"][key], runs[megakernel]["parameters"][key], key)
            expected = geometric_mean([runs[r]["frame_gpu_ms"]["median"] / runs[m]["frame_gpu_ms"]["median"]
                                       for r, m in zip(ids, megakernels)])
            self.assertEqual(row["cells"][4], f"{expected:.3f}x", row)
        self.assertEqual(self.chart(probe, "relative GPU time")["points"], [len(verdict)])
        # The why: one series per stage any run has, and the overhead.
        stages = {stage["name"] for run in ok for stage in run["stages"]}
        breakdown = self.chart(probe, "stage breakdown")
        self.assertEqual(breakdown["series"], len(stages) + 1)
        self.assertEqual(breakdown["points"], [len(ok)] * (len(stages) + 1))
        bounced = [run for run in ok if any("gpu_ms_median_per_bounce" in s for s in run["stages"])]
        self.assertEqual(self.chart(probe, "time per bounce")["series"], len(bounced))
        # Every run's metrics, each run's image, and the differences to the megakernel's.
        self.assertEqual(len(probe["tables"]["runs-table"]), len(self.report["runs"]))
        run_images = [i for i in probe["images"] if i["alt"].startswith("run ")]
        self.assertEqual(len(run_images), sum(1 for run in ok if "images" in run))
        differences = [i for i in probe["images"] if i["alt"].startswith("difference ")]
        self.assertEqual(len(differences), sum(len(row["data"]["runIds"].split()) for row in verdict))
        self.assertIn("CPU implementation", probe["banner"] or "", "no banner for a CPU device")
        for section in ("verdict", "why", "runs", "images", "config"):
            self.assertIn(section, probe["sections"])
        # One zoom and pan for a scene's images, driven from the keyboard.
        keys = probe["script"]
        self.assertTrue(keys["focused"])
        self.assertEqual(len(set(keys["transforms"])), 1, keys)
        self.assertIn("scale(1.5625)", keys["transforms"][0])
        self.assertTrue(all(keys["modes"]), keys)
        self.assertEqual(set(keys["reset"]), {"translate(0px, 0px) scale(1)"})

    def gpu_like(self, report, slower=None, factor=1.0, revision=None, date=None):
        """A copy of `report` as a GPU would have given it: device type not cpu, eight frames a run
        (compare judges from five), and `slower` (a run id) `factor` times slower."""
        copied = copy.deepcopy(report)
        copied["device"]["type"] = "discrete"
        copied["notes"] = []
        for run in copied["runs"]:
            if run["status"] != "ok":
                continue
            median = run["frame_gpu_ms"]["median"] * (factor if run["id"] == slower else 1.0)
            run["frame_gpu_ms_samples"] = [median * (1 + 0.001 * k) for k in range(-4, 4)]
            run["frame_gpu_ms"].update(median=median, cv=0.002)
            run["noisy"] = False
        if revision:
            copied["tool"]["git_revision"] = revision
        if date:
            copied["date"] = date
        return copied

    def write(self, name, report):
        path = self.folder / name
        path.write_text(json.dumps(report))
        return path

    def test_a_compare_page(self):
        base = self.write("base.json", self.gpu_like(self.report))
        new = self.write("new.json", self.gpu_like(self.report, slower="r000", factor=1.25))
        page = self.dir / "compare.html"
        compare = subprocess.run([str(PTBENCH), "compare", str(base), str(new), "--html", str(page)],
                                 capture_output=True, text=True)
        self.assertEqual(compare.returncode, 1, compare.stdout + compare.stderr)
        probe = self.open_page(page, "compare.png")
        rows = probe["tables"]["compare-table"]
        self.assertEqual(len(rows), len(self.report["runs"]))
        verdicts = [row["cells"][0] for row in rows]
        self.assertEqual(verdicts.count("REGRESSED"), 1, verdicts)
        self.assertEqual(verdicts.count("same"), len(rows) - 1, verdicts)
        printed = [line.split()[0] for line in compare.stdout.splitlines()
                   if line.split() and line.split()[0] in ("REGRESSED", "faster", "same", "unsure", "missing")]
        self.assertEqual(verdicts, printed, "the page's verdicts are not compare's")
        self.assertEqual(self.chart(probe, "compare ratios")["points"], [len(rows), len(rows)])
        self.assertIn("compare", probe["sections"])

    def test_a_history_page(self):
        builds = [self.write(f"build{i}.json", self.gpu_like(self.report, slower="r001" if i == 2 else None,
                                                             factor=1.5, revision=str(i) * 40,
                                                             date=f"2026-12-0{i + 1}T00:00:00Z"))
                  for i in range(3)]
        page = self.dir / "history.html"
        # Given out of date order: the page orders them by date.
        made = subprocess.run([str(PTBENCH), "report", str(builds[2]), str(builds[0]), str(builds[1]), "--out",
                               str(page)], capture_output=True, text=True)
        self.assertEqual(made.returncode, 0, made.stdout + made.stderr)
        probe = self.open_page(page, "history.png")
        history = self.chart(probe, "history")
        self.assertEqual(history["series"], sum(1 for run in self.report["runs"] if run["status"] == "ok"))
        self.assertEqual(set(history["points"]), {3})
        steps = probe["tables"]["history-table"]
        self.assertEqual([row["cells"][2] for row in steps], ["OK", "REGRESSION"])
        # A config that is not the others' is no history.
        other = self.gpu_like(self.report)
        other["config_hash"] = "another"
        refused = subprocess.run([str(PTBENCH), "report", str(builds[0]), str(self.write("other.json", other)),
                                  "--out", str(self.dir / "refused.html")], capture_output=True, text=True)
        self.assertEqual(refused.returncode, 1)
        self.assertIn("config_hash", refused.stderr)
        self.assertFalse((self.dir / "refused.html").exists())

    def test_convergence_curves_and_a_page_published_without_its_images(self):
        reference = self.dir / "reference.exr"
        made = subprocess.run([str(PTBENCH), "reference", "builtin:cornell", "--width", "16", "--height", "16",
                               "--spp", "64", "--out", str(reference), "--quiet"], capture_output=True, text=True)
        self.assertEqual(made.returncode, 0, made.stderr)
        config = {"schema_version": 1, "name": "converging",
                  "scenes": [{"path": "builtin:cornell", "reference": str(reference)}],
                  "integrators": ["megakernel", "wavefront"], "backends": ["software"], "resolution": "16x16",
                  "spp": [1, 4], "max_depth": 8, "warmup": 1, "repeats": 3}
        config_file = self.write("converging.json", config)
        run = subprocess.run([str(PTBENCH), "run", str(config_file), "--out", str(self.dir / "converging"), "--quiet"],
                             capture_output=True, text=True, timeout=600)
        self.assertEqual(run.returncode, 0, run.stderr)
        folder = next((self.dir / "converging").glob("converging/*/report.json")).parent
        # One curve an integrator: the wavefront's default pool grows with the samples, its runs one line.
        probe = self.open_page(folder / "report.html", "convergence.png")
        self.assertEqual(self.chart(probe, "convergence")["points"], [2, 2])
        self.assertEqual(self.chart(probe, "FLIP convergence")["points"], [2, 2])
        # As results/published keeps it: the report gzipped, no images beside it.
        published = self.dir / "published"
        published.mkdir()
        with open(folder / "report.json", "rb") as source, gzip.open(published / "report.json.gz", "wb") as target:
            shutil.copyfileobj(source, target)
        page = published / "report.html"
        made = subprocess.run([str(PTBENCH), "report", str(published / "report.json.gz"), "--out", str(page)],
                              capture_output=True, text=True)
        self.assertEqual(made.returncode, 0, made.stderr)
        probe = self.open_page(page, "published.png", IMAGES_AND_LINKS)
        self.assertEqual(probe["images"], [], "an image the page cannot show")
        self.assertIn("are not beside it", probe["script"]["images"])
        self.assertIn("report.json.gz", probe["script"]["links"])
        self.assertNotIn("report.csv", probe["script"]["links"])


if __name__ == "__main__":
    if not browser_check.find_chromium():
        print("SKIPPED: no Chromium on this machine; Debian's `chromium` package (scripts/setup.sh installs it) is "
              "what this test drives to check the HTML report in a real browser")
        sys.exit(77)
    unittest.main(argv=sys.argv[:1], verbosity=2)
