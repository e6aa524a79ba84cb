#!/usr/bin/python3
"""scripts/plot.py with the real matplotlib, on the published paper report (gzipped, with
frame-timed runs) and on a camera-path report without a reference: no warning of any kind, even
under `python3 -W error`; the bounce figure's axis titles stay beside their own panels; simt's
lines, which may lie on one another, differ in marker. Exits 77 (skipped) without matplotlib."""
import gzip
import json
import pathlib
import subprocess
import sys
import tempfile
import unittest

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError as error:
    print(f"skipped: {error} (scripts/setup.sh installs matplotlib)")
    sys.exit(77)

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "plot.py"
PAPER = ROOT / "results" / "published" / "2026-12-02-headline-h200" / "paper" / "report.json.gz"
SIMT = ROOT / "results" / "published" / "2026-11-23-ser-divergence-h100" / "counters" / "report.json.gz"


def load_plot():
    import importlib.util

    spec = importlib.util.spec_from_file_location("plot", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def camera_path_report():
    """Two runs along a camera path, as `ptbench run configs/camera-path.json` writes them without
    a reference: frame times, no relMSE."""
    def run(number, integrator, ms):
        frames = [{"frame": f, "gpu_ms": ms + 0.01 * f, "host_ms": ms + 0.1} for f in range(25)]
        return {"id": f"r{number:03d}", "status": "ok", "frame_gpu_ms": {"median": ms, "min": ms, "max": ms + 0.3},
                "frame_gpu_ms_samples": [f["gpu_ms"] for f in frames],
                "parameters": {"scene": "builtin:cornell", "integrator": integrator, "backend": "rayquery",
                               "width": 32, "height": 18, "spp": 1, "max_depth": 8, "rr_depth": 3, "seed": 1,
                               "sampler": "halton", "counters": "off", "timing": "stages"},
                "stages": [{"name": "trace_shade", "gpu_ms": {"median": ms * 0.9}}],
                "overhead_gpu_ms": {"median": ms * 0.1},
                "camera_path": {"frames": frames, "gpu_ms_mean": ms}}

    return {"schema_version": 1, "date": "2026-12-02T16:19:24Z", "config": {"name": "camera-path"},
            "device": {"name": "llvmpipe"}, "runs": [run(0, "megakernel", 0.9), run(1, "wavefront", 1.8)]}


class RealMatplotlib(unittest.TestCase):
    def plot_under_w_error(self, report):
        with tempfile.TemporaryDirectory() as folder:
            result = subprocess.run([sys.executable, "-W", "error", str(SCRIPT), str(report), "--out", folder],
                                    capture_output=True, text=True, timeout=300)
            return result, sorted(p.name for p in pathlib.Path(folder).glob("*.png"))

    def test_the_paper_report_plots_without_a_warning(self):
        result, figures = self.plot_under_w_error(PAPER)
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertIn("relative_time.png", figures)

    def test_a_camera_path_without_a_reference_plots_without_a_warning(self):
        with tempfile.TemporaryDirectory() as folder:
            report = pathlib.Path(folder) / "report.json"
            report.write_text(json.dumps(camera_path_report()))
            result, figures = self.plot_under_w_error(report)
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertIn("camera_path.png", figures)

    def test_bounce_axis_titles_stay_beside_their_own_panels(self):
        plot = load_plot()
        report = json.loads(gzip.decompress(PAPER.read_bytes()))
        runs = [dict(r, _source="H200") for r in report["runs"] if r["parameters"]["integrator"] == "wavefront"]
        drawn = [r for r in runs if plot.timed_by_stage(r)][:4]
        figure = plot.draw_bounces(drawn, "paper", plot.stage_colours(drawn))
        figure.canvas.draw()
        renderer = figure.canvas.get_renderer()
        axes = figure.axes
        for axis in axes:
            label = axis.yaxis.label.get_window_extent(renderer)
            for other in axes:
                if other is not axis:
                    self.assertFalse(label.overlaps(other.get_window_extent(renderer)), axis.get_title())
                    self.assertFalse(label.overlaps(other.yaxis.label.get_window_extent(renderer)), axis.get_title())
        plt.close(figure)

    def test_simt_lines_differ_in_marker_and_legend_entries_are_lines(self):
        plot = load_plot()
        report = json.loads(gzip.decompress(SIMT.read_bytes()))
        runs = [dict(r, _source="H100") for r in report["runs"] if r.get("status") == "ok" and "simt" in r]
        figure = plot.draw_simt(runs, "ser-divergence")
        for axis in figure.axes:
            lines = axis.get_lines()
            markers = [line.get_marker() for line in lines]
            self.assertEqual(len(set(markers)), len(markers), axis.get_title())
            legend = axis.get_legend()
            if legend:
                self.assertEqual(len(legend.get_texts()), len(lines))
        plt.close(figure)


if __name__ == "__main__":
    unittest.main()
