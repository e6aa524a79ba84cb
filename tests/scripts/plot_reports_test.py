#!/usr/bin/python3
"""scripts/plot.py on odd input: without matplotlib or numpy it says which to install, in one line,
exit 2; a report it cannot plot (failed runs only, no runs, not a report) is one line, exit 2; a run
or a part of a run that is malformed or missing is left out with a note naming where, the rest
drawn. Never a traceback. Runs without matplotlib or numpy: matplotlib is stubbed by one that
takes any call and checks that what would be drawn is numbers, as the real one needs."""
import contextlib
import copy
import gzip
import importlib.util
import io
import json
import math
import pathlib
import re
import subprocess
import sys
import tempfile
import types
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


def numbers(value, nulls):
    """Whether value is a number, or a sequence of them (None among them where nulls)."""
    if isinstance(value, (list, tuple, range)):
        return all(numbers(item, nulls) for item in value)
    if value is None:
        return nulls
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


# The arguments matplotlib draws: (positional indices, keywords) of each call that takes numbers.
DRAWN = {"barh": ((0, 1), ("left", "xerr")), "bar": ((0, 1, 2), ()), "plot": ((0, 1), ()),
         "scatter": ((0, 1), ()), "annotate": ((1,), ()), "text": ((0, 1), ()), "axvline": ((0,), ()),
         "set_xlim": ((0, 1), ()), "set_ylim": ((0, 1), ()), "set_xticks": ((0,), ()), "set_yticks": ((0,), ())}


class Anything:
    """Takes any call and attribute: an axis's formatters and locators, a transform."""
    def __getattr__(self, name):
        return lambda *args, **kwargs: None


class Axes:
    def __init__(self):
        self.drawn = self.labelled = False
        self.calls = []  # (name, args, kwargs) of every call, for the checks of what was drawn
        self.xaxis, self.yaxis, self.transAxes = Anything(), Anything(), Anything()

    def has_data(self):
        return self.drawn

    def drawn_calls(self, name):
        return [(args, kwargs) for called, args, kwargs in self.calls if called == name]

    def legend(self, *args, **kwargs):
        # matplotlib logs a warning to stderr for a legend of nothing.
        assert self.labelled, "a legend without labelled artists"

    def __getattr__(self, name):
        def call(*args, **kwargs):
            self.calls.append((name, args, kwargs))
            if kwargs.get("label") is not None:
                self.labelled = True
            if name in DRAWN:
                indices, keywords = DRAWN[name]
                values = [args[i] for i in indices if i < len(args)] + [kwargs[k] for k in keywords if k in kwargs]
                assert numbers(values, nulls=name == "plot"), f"{name}{args} {kwargs}: not numbers"
                if "xerr" in kwargs:
                    assert all(e >= 0 for side in kwargs["xerr"] for e in side), f"negative error bar {kwargs}"
                self.drawn = True
        return call


class Figure(Axes):
    saved = []  # the paths of the figures saved since the last plot()
    figures = {}  # name -> (figure, its grid of axes) of the figures saved since the last plot()

    def savefig(self, path, **options):
        Figure.saved.append(pathlib.Path(path))
        Figure.figures[pathlib.Path(path).stem] = self


class Grid:
    """subplots' axes: rows of columns, indexed [row, column], [:, column] or [row]."""
    def __init__(self, rows, columns):
        assert rows >= 1 and columns >= 1, f"subplots({rows}, {columns})"
        self.rows = [[Axes() for _ in range(columns)] for _ in range(rows)]

    def __getitem__(self, key):
        if isinstance(key, tuple):
            row, column = key
            return [r[column] for r in self.rows[row]] if isinstance(row, slice) else self.rows[row][column]
        return self.rows[key]

    def __iter__(self):
        return iter(self.rows)


def subplots(rows=1, columns=1, **options):
    figure, grid = Figure(), Grid(rows, columns)
    figure.grid = grid
    return figure, grid


def load_plot():
    matplotlib = types.ModuleType("matplotlib")
    matplotlib.use = lambda backend: None
    pyplot = types.ModuleType("matplotlib.pyplot")
    pyplot.subplots = subplots
    pyplot.close = lambda figure: None
    ticker = types.ModuleType("matplotlib.ticker")
    ticker.LogFormatter = type("LogFormatter", (), {"__init__": lambda self, **options: None})
    ticker.MaxNLocator = lambda **options: None
    matplotlib.pyplot, matplotlib.ticker = pyplot, ticker
    sys.modules["matplotlib"], sys.modules["matplotlib.pyplot"] = matplotlib, pyplot
    sys.modules["matplotlib.ticker"] = ticker
    spec = importlib.util.spec_from_file_location("plot", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PLOT = load_plot()


def statistics(median):
    return {"count": 4, "mean": median, "median": median, "min": 0.9 * median, "max": 1.2 * median, "stddev": 0.01,
            "cv": 0.01}


def parameters(integrator, scene="builtin:cornell", options=None, **changes):
    p = {"scene": scene, "integrator": integrator, "backend": "pipeline", "width": 64, "height": 64, "spp": 1,
         "max_depth": 5, "rr_depth": 3, "seed": 1, "sampler": "halton", "counters": "off", "timing": "stages",
         "options": options or {}}
    p.update(changes)
    return p


def finished(number, p, median, **parts):
    run = {"id": f"r{number:03d}", "status": "ok", "parameters": p, "frames": 4, "warmup_frames": 1,
           "frame_gpu_ms": statistics(median), "frame_host_ms": statistics(median + 0.1),
           "frame_gpu_ms_samples": [median] * 4, "overhead_gpu_ms": statistics(0.05),
           "stages": [{"name": "megakernel", "launches_per_frame": 1, "gpu_ms": statistics(median)}],
           "throughput": {"paths_per_s": 1e9, "rays_per_s": 2e9, "segments_per_s": 3e9},
           "material_classes": {"diffuse": 10}, "roofline_fraction": 0.5}
    run.update(parts)
    return run


PHASES = {"traversal": 0.5, "material": 0.25, "light": None, "rest": 0.25}


def full_report():
    """A report with every part plot.py draws: each figure has something in it."""
    wavefront = {"schedule": "depth", "pool_size": 4096, "compaction": True}
    runs = [
        finished(0, parameters("megakernel", counters="simt"), 2.0,
                 convergence={"target_relmse": 0.01, "rmse": 0.1, "relmse": 0.02, "efficiency": 25.0},
                 simt={"stage": "megakernel", "per_bounce": [{"bounce": 1, "utilisation": 0.8, "coherence": 1.5},
                                                             {"bounce": 2, "utilisation": None, "coherence": None}]},
                 clocks={"phases": PHASES, "per_bounce": []}),
        finished(1, parameters("wavefront", options=wavefront), 1.5,
                 stages=[{"name": "extend", "gpu_ms": statistics(1.0), "gpu_ms_median_per_bounce": [0.6, 0.4]},
                         {"name": "shade", "gpu_ms": statistics(0.5), "gpu_ms_median_per_bounce": [0.3, 0.2]}],
                 work_per_bounce={"live_paths": [4096, 2048], "shadow_rays": [4000, 2000], "paths_started": [4096, 0]},
                 clocks={"phases": PHASES, "per_stage": [{"stage": "extend", "phases": PHASES}]},
                 convergence={"relmse": 0.03, "efficiency": 20.0},
                 camera_path={"frames": [{"frame": 0, "gpu_ms": 1.4, "host_ms": 1.5, "relmse": 0.1, "flip": 0.3},
                                         {"frame": 1, "gpu_ms": 1.6, "host_ms": 1.7, "relmse": 0.2, "flip": 0.4}],
                              "gpu_ms_mean": 1.5, "relmse_mean": 0.15, "relmse_median": 0.15, "flip_mean": 0.35,
                              "flip_median": 0.35, "efficiency": 4.4}),
        finished(2, parameters("wavefront", options=dict(wavefront, pool_size=8192)), 1.2),
        finished(3, parameters("megakernel", counters="simt", max_depth=8), 2.5),
        finished(4, parameters("raycast", options={"rays": "primary"}), 0.5,
                 raycast={"rays": "primary", "rays_traced": 4096, "trace_gpu_ms_median": 0.4, "rays_per_s": 1e10}),
        finished(5, parameters("megakernel", scene="builtin:spheres?n=2&subdiv=1"), 1.0,
                 material_classes={"diffuse": 160}),
        finished(6, parameters("megakernel", scene="builtin:spheres?n=8&subdiv=1"), 3.0,
                 material_classes={"diffuse": 640}),
        {"id": "r007", "status": "error", "parameters": parameters("wavefront", scene="missing.gltf"),
         "error": "missing.gltf: no such file"},
        {"id": "r008", "status": "interrupted", "parameters": parameters("megakernel", scene="builtin:furnace")},
    ]
    return {"schema_version": 1, "date": "2026-12-01T00:00:00Z", "config": {"name": "odd-input"},
            "device": {"name": "NVIDIA H100 80GB HBM3", "driver_info": "550.54"}, "runs": runs}


# In memory where there is a /dev/shm: the sweep below writes the report a thousand times.
SCRATCH = tempfile.TemporaryDirectory(dir="/dev/shm" if pathlib.Path("/dev/shm").is_dir() else None)


def plot(report, *arguments, raw=None, folders=None):
    """plot.py's main on a report (an object, or raw bytes) in a scratch folder, with arguments or
    --out figures there: (exit code, stderr with the report's path as report.json, the names of the
    figures saved); the folders they were saved in, relative to the scratch folder, into folders."""
    folder = pathlib.Path(SCRATCH.name)
    path = folder / "report.json"
    path.write_bytes(raw if raw is not None else json.dumps(report).encode())
    arguments = [a.replace("SCRATCH", str(folder)) for a in arguments] if arguments else ["--out", str(folder / "x")]
    argv, sys.argv = sys.argv, ["plot.py", str(path), *arguments]
    Figure.saved, Figure.figures = [], {}
    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
            code = PLOT.main()
    except SystemExit as exit:
        code = exit.code
    finally:
        sys.argv = argv
    figures = sorted({p.stem for p in Figure.saved if p.suffix == ".png"})
    if folders is not None:
        folders.update(str(p.parent.relative_to(folder)) for p in Figure.saved)
    return code, stderr.getvalue().replace(str(path), "report.json").replace(str(folder), "SCRATCH"), figures


class OddReports(unittest.TestCase):
    def assertNotes(self, stderr):
        for line in stderr.splitlines():
            self.assertTrue(line.startswith("plot.py: report.json: "), stderr)

    def test_a_full_report_draws_every_figure_without_a_note(self):
        code, stderr, written = plot(full_report())
        self.assertEqual((code, stderr), (0, ""))
        self.assertEqual(written, ["bounces", "camera_path", "clocks", "convergence", "frame_gpu_ms", "relative_time",
                                   "roofline", "simt", "stage_breakdown", "sweep_max_depth", "sweep_pool_size",
                                   "sweep_triangles"])

    def test_failed_and_interrupted_runs_only_or_none_is_one_line_exit_2(self):
        report = full_report()
        report["runs"] = report["runs"][7:]
        code, stderr, written = plot(report)
        self.assertEqual(code, 2)
        self.assertEqual(stderr, "plot.py: report.json: no successful run to plot (1 error, 1 interrupted)\n")
        self.assertEqual(written, [])
        report["runs"] = []
        self.assertEqual(plot(report)[:2], (2, "plot.py: report.json: no successful run to plot (no runs)\n"))

    def test_what_is_not_a_report_is_named(self):
        for raw, phrase in ((b"[1, 2]", "not a ptbench report"), (b'{"runs": 5}', "not a ptbench report"),
                            (b'"text"', "not a ptbench report"), (b"{}", "not a ptbench report"),
                            (b"", "not a JSON report"), (b"{\"runs\": [", "not a JSON report"),
                            (b"\xff\xfe\x00garbage", "not a JSON report"), (gzip.compress(b"[]")[:-3], "not a JSON"),
                            (b"[" * 100000, "not a JSON report")):
            with self.subTest(raw=raw[:20]):
                code, stderr, written = plot(None, raw=raw)
                self.assertEqual(code, 2)
                self.assertEqual(len(stderr.splitlines()), 1, stderr)
                self.assertIn(f"plot.py: report.json: {phrase}", stderr)

    def test_a_gzip_compressed_report_is_read(self):
        code, stderr, written = plot(None, raw=gzip.compress(json.dumps(full_report()).encode()))
        self.assertEqual((code, stderr), (0, ""))
        self.assertIn("frame_gpu_ms", written)

    def test_runs_without_the_optional_parts_are_drawn(self):
        report = full_report()
        for run in report["runs"][:7]:
            for key in ("stages", "simt", "camera_path", "frame_gpu_ms_samples", "overhead_gpu_ms", "clocks",
                        "convergence", "work_per_bounce", "material_classes", "throughput", "roofline_fraction"):
                run.pop(key, None)
            for key in ("min", "max", "mean", "stddev", "count"):
                del run["frame_gpu_ms"][key]
            del run["parameters"]["options"]
        code, stderr, written = plot(report)
        self.assertEqual((code, stderr), (0, ""))
        self.assertIn("frame_gpu_ms", written)
        self.assertNotIn("simt", written)

    def test_a_mistyped_field_leaves_out_its_run_or_its_part_with_a_note(self):
        report = full_report()
        report["runs"][3]["frame_gpu_ms"]["median"] = "2.5"
        report["runs"][0]["simt"]["per_bounce"][1]["utilisation"] = "high"
        report["runs"][2]["throughput"]["rays_per_s"] = -5  # a bar on the roofline's log axis
        code, stderr, written = plot(report)
        self.assertEqual(code, 0)
        self.assertEqual(stderr.splitlines(), [
            'plot.py: report.json: /runs/0/simt/per_bounce/1/utilisation: expected a number or null, got "high"; '
            "its simt is left out",
            "plot.py: report.json: /runs/2/throughput/rays_per_s: expected a number >= 0, got -5; "
            "its throughput is left out",
            'plot.py: report.json: /runs/3/frame_gpu_ms/median: expected a number > 0, got "2.5"; '
            "that run is left out"])
        self.assertNotIn("simt", written)
        self.assertNotIn("sweep_max_depth", written)
        self.assertIn("frame_gpu_ms", written)

    def test_notes_past_ten_a_report_are_counted(self):
        report = full_report()
        report["runs"] = [copy.deepcopy(report["runs"][0]) for _ in range(14)] + report["runs"][1:]
        for run in report["runs"][:14]:
            run["simt"] = "none"
        code, stderr, written = plot(report)
        self.assertEqual(code, 0)
        self.assertEqual(len(stderr.splitlines()), 11)
        self.assertEqual(stderr.splitlines()[-1], "plot.py: report.json: 4 more notes like these")

    def test_any_field_missing_or_of_another_type_is_a_note_or_a_message_never_a_traceback(self):
        # Every place in the report, removed or replaced by another type or a negative number: each
        # run and its parts in the first run of each integrator and status, what lies deeper in the
        # first run that has it and in the first item of each list (a few seconds, not minutes).
        def places(value, at=()):
            yield at
            items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
            for key, item in items:
                yield from places(item, at + (key,))

        report = full_report()
        kinds = [f'{run["parameters"]["integrator"]} {run["status"]}' for run in report["runs"]]
        seen = set()
        for at in places(report):
            shape = tuple(kinds[k] if i == 1 and at[0] == "runs" and len(at) <= 3 else "#" if isinstance(k, int)
                          else k for i, k in enumerate(at))
            if shape in seen or not at:
                continue
            seen.add(shape)
            for replacement in ("delete", "x", None, -1, True):
                broken = copy.deepcopy(report)
                parent = broken
                for key in at[:-1]:
                    parent = parent[key]
                if replacement == "delete":
                    del parent[at[-1]]
                else:
                    parent[at[-1]] = replacement
                with self.subTest(at="/".join(map(str, at)), replacement=replacement):
                    code, stderr, _ = plot(broken)
                    self.assertIn(code, (0, 2), stderr)
                    self.assertNotes(stderr)
        self.assertGreater(len(seen), 150)


def colours_in(calls):
    """Every colour named by a drawing call (color=, edgecolor=, ecolor=), lists flattened."""
    for _, _, kwargs in calls:
        for key in ("color", "edgecolor", "ecolor"):
            value = kwargs.get(key)
            yield from value if isinstance(value, list) else [] if value is None else [value]


def bar_totals(axis, bars):
    """Each bar's length summed over an axis's barh calls (stacked segments added)."""
    totals = [0.0] * bars
    for args, _ in axis.drawn_calls("barh"):
        for position, width in zip(args[0], args[1]):
            totals[position] += width
    return totals


class PaperFigures(unittest.TestCase):
    """What a figure must show to be read in a paper: whole frames where a run has no stage
    times, quartiles rather than single frames, one convention for time against the megakernel,
    a panel that says why it is empty, colours that any reader tells apart."""

    def frame_timed_report(self):
        wavefront = {"schedule": "depth", "pool_size": 4096}
        per_bounce = {"stages": [{"name": "extend", "gpu_ms": statistics(0.8), "gpu_ms_median_per_bounce": [0.5, 0.3]}],
                      "work_per_bounce": {"live_paths": [4096, 0]}}
        runs = [finished(0, parameters("megakernel", timing="frame"), 2.0, stages=[]),
                finished(1, parameters("megakernel", timing="stages"), 2.2),
                finished(2, parameters("wavefront", options=wavefront, timing="frame"), 1.0, stages=[],
                         work_per_bounce={"live_paths": [4096, 0]}),
                finished(3, parameters("wavefront", options=wavefront, timing="stages"), 1.1, **per_bounce)]
        for run in runs[0], runs[2]:
            del run["overhead_gpu_ms"]  # as ptbench writes a frame-timed run
        report = full_report()
        report["runs"] = runs
        return report

    def test_a_frame_timed_run_is_drawn_as_its_frame_total(self):
        report = self.frame_timed_report()
        runs = [dict(run, _source="H100") for run in report["runs"]]  # as load() tags them
        axis = Axes()
        PLOT.draw_stages(axis, runs, PLOT.stage_colours(runs))
        totals = bar_totals(axis, len(runs))
        self.assertAlmostEqual(totals[0], 2.0)
        self.assertAlmostEqual(totals[2], 1.0)
        for total, run in zip(totals, runs):
            self.assertGreater(total, 0.5 * run["frame_gpu_ms"]["median"], run["parameters"])
        labels = [kwargs.get("label") for _, kwargs in axis.drawn_calls("barh")]
        self.assertIn(PLOT.FRAME_TOTAL, labels)

    def test_frame_timed_runs_are_left_out_of_the_bounces_saying_so(self):
        code, stderr, written = plot(self.frame_timed_report())
        self.assertEqual((code, stderr), (0, ""))
        bounces = Figure.figures["bounces"]
        self.assertEqual(len(bounces.grid.rows), 1, "the stage-timed wavefront only")
        (title,), _ = bounces.drawn_calls("suptitle")[0]
        self.assertIn("1 frame-timed runs left out (timing=frame: no stage times)", title)

    def test_whiskers_are_the_quartiles_of_the_frames_not_their_extremes(self):
        run = finished(0, parameters("megakernel"), 3.0, frame_gpu_ms_samples=[1.0, 2.0, 3.0, 4.0, 100.0],
                       _source="H100")
        self.assertEqual(PLOT.spread(run), (2.0, 3.0, 4.0))
        run["frame_gpu_ms"]["min"], run["frame_gpu_ms"]["max"] = 1.0, 100.0
        axis = Axes()
        PLOT.draw_frames(axis, [run])
        (_, kwargs), = axis.drawn_calls("barh")
        self.assertEqual(kwargs["xerr"], [[1.0], [1.0]])
        del run["frame_gpu_ms_samples"]
        self.assertEqual(PLOT.spread(run), (3.0, 3.0, 3.0), "no samples, no whisker: min and max are single frames")

    def test_time_against_the_megakernel_is_relative_time_below_1_faster(self):
        code, stderr, written = plot(self.frame_timed_report())
        self.assertIn("relative_time", written)
        self.assertNotIn("speedup", written)
        axis = Figure.figures["relative_time"].grid[0, 0]
        ratios = {}
        for args, _ in axis.drawn_calls("barh"):
            ratios.update(zip(args[0], args[1]))
        # Each wavefront over the megakernel of its own timing: 1.0 / 2.0 and 1.1 / 2.2.
        self.assertEqual(sorted(round(r, 6) for r in ratios.values()), [0.5, 0.5])
        (label,), _ = axis.drawn_calls("set_xlabel")[0]
        self.assertIn("relative to the megakernel", label)
        self.assertIn("lower is better, < 1 is faster", label)
        # Whiskers wholly below 1: coloured faster. (Bars were coloured by the ratio alone, a
        # ratio of 0.99 inside its noise as faster as 0.5.)
        self.assertEqual({kwargs["color"] for _, kwargs in axis.drawn_calls("barh")}, {PLOT.FASTER})

    def test_a_relative_time_whose_interval_spans_1_is_within_the_noise(self):
        report = self.frame_timed_report()
        for run in report["runs"]:
            if run["parameters"]["integrator"] != "megakernel":
                megakernel = next(r for r in report["runs"] if r["parameters"]["integrator"] == "megakernel"
                                  and r["parameters"].get("timing") == run["parameters"].get("timing"))
                base = megakernel["frame_gpu_ms"]["median"]
                megakernel["frame_gpu_ms_samples"] = [base * 0.9, base * 0.95, base, base, base * 1.05, base * 1.1]
                median = base * 0.99
                run["frame_gpu_ms"]["median"] = median
                run["frame_gpu_ms_samples"] = [median * 0.9, median * 0.95, median, median, median * 1.05, median * 1.1]
        self.assertEqual(plot(report)[:2], (0, ""))
        axis = Figure.figures["relative_time"].grid[0, 0]
        self.assertEqual({kwargs["color"] for _, kwargs in axis.drawn_calls("barh")}, {PLOT.SAME})

    def test_a_camera_path_without_a_reference_says_so_in_its_error_panel(self):
        report = full_report()
        path = report["runs"][1]["camera_path"]
        del path["efficiency"]
        for frame in path["frames"]:
            del frame["relmse"]
        self.assertEqual(plot(report)[:2], (0, ""))
        error_panel = Figure.figures["camera_path"].grid[0, 0]
        texts = [args[2] for args, _ in error_panel.drawn_calls("text")]
        self.assertEqual(texts, [PLOT.NO_REFERENCE])
        self.assertIn("no reference", PLOT.NO_REFERENCE)

    def test_a_camera_path_plots_flip_per_frame_between_relmse_and_time(self):
        self.assertEqual(plot(full_report())[:2], (0, ""))
        relmse_panel, flip_panel, time_panel = Figure.figures["camera_path"].grid[0]
        self.assertEqual([args[1] for args, _ in flip_panel.drawn_calls("plot")], [[0.3, 0.4]])
        self.assertEqual([args[1] for args, _ in relmse_panel.drawn_calls("plot")], [[0.1, 0.2]])
        self.assertEqual([args[1] for args, _ in time_panel.drawn_calls("plot")], [[1.4, 1.6]])
        (label,), _ = flip_panel.drawn_calls("set_ylabel")[0]
        self.assertIn("FLIP", label)
        self.assertIn("lower is better", label)
        # A report from before FLIP: relMSE and time only.
        report = full_report()
        for frame in report["runs"][1]["camera_path"]["frames"]:
            del frame["flip"]
        self.assertEqual(plot(report)[:2], (0, ""))
        self.assertEqual(len(Figure.figures["camera_path"].grid[0]), 2)

    def test_every_colour_is_okabe_and_itos_or_neutral(self):
        self.assertEqual(plot(full_report())[:2], (0, ""))
        neutral = {PLOT.OVERHEAD_COLOUR, "white", "black"}
        calls = [c for figure in Figure.figures.values() for row in figure.grid for axis in row for c in axis.calls]
        used = set(colours_in(calls))
        self.assertTrue(used, "colours are named, not left to matplotlib's red-and-green default cycle")
        self.assertLessEqual(used, set(PLOT.OKABE_ITO) | neutral)

    def test_runs_of_equal_simt_are_one_line_and_lines_differ_in_marker(self):
        report = full_report()
        twin = copy.deepcopy(report["runs"][3])
        twin["parameters"]["max_depth"] = 12
        twin["simt"] = copy.deepcopy(report["runs"][0]["simt"])
        report["runs"][3]["simt"] = {"per_bounce": [{"bounce": 1, "utilisation": 0.5, "coherence": 2.0}]}
        report["runs"].append(twin)
        self.assertEqual(plot(report)[:2], (0, ""))
        panel = Figure.figures["simt"].grid[0, 0]
        lines = panel.drawn_calls("plot")
        self.assertEqual(len(lines), 2, "runs 0 and the twin measured the same: one line")
        self.assertEqual(len(lines[0][1]["label"].splitlines()), 2)
        self.assertNotEqual(lines[0][1]["marker"], lines[1][1]["marker"])

    def test_figures_go_into_plots_beside_a_gzipped_report(self):
        folder = pathlib.Path(SCRATCH.name) / "study"
        folder.mkdir(exist_ok=True)
        path = folder / "report.json.gz"
        path.write_bytes(gzip.compress(json.dumps(full_report()).encode()))
        argv, sys.argv = sys.argv, ["plot.py", str(path)]
        Figure.saved, Figure.figures = [], {}
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(PLOT.main(), 0)
        finally:
            sys.argv = argv
        self.assertEqual({p.parent for p in Figure.saved}, {folder / "plots"})


class StagesAndOrder(unittest.TestCase):
    """A stage keeps its colour from report to report (they were given by first appearance, so
    that two reports' figures disagreed), frames stack their stages in the order they run, and
    scenes sort by their numbers (cost=16 came before cost=4)."""

    def test_a_stage_has_one_colour_whatever_else_a_report_holds(self):
        wavefront = [{"stages": [{"name": n} for n in ("extend", "shade", "shadow")]}]
        with_restir = [{"stages": [{"name": n} for n in ("restir_spatial", "shadow", "generate", "extend")]}]
        first, second = PLOT.stage_colours(wavefront), PLOT.stage_colours(with_restir)
        for name in ("extend", "shadow"):
            self.assertEqual(first[name], second[name], name)

    def test_every_frame_stage_of_core_stage_h_has_a_style_of_its_own(self):
        stage_h = (pathlib.Path(__file__).resolve().parents[2] / "core" / "stage.h").read_text()
        names = re.findall(r'STAGE\(\w+, "([a-z_]+)"\)', stage_h)
        frame = [n for n in names if n != "selftest" and not n.startswith(("build_", "compact_", "bvh_"))]
        self.assertEqual(sorted(frame), sorted(PLOT.STAGE_ORDER), "plot.py's STAGE_STYLE against core/stage.h")
        self.assertEqual(len(set(PLOT.STAGE_STYLE.values())), len(PLOT.STAGE_STYLE), "no two stages look alike")

    def test_stages_stack_in_the_order_a_frame_runs_them(self):
        self.assertEqual(sorted(["shadow", "restir_shade", "generate", "extend"], key=PLOT.stage_order),
                         ["generate", "extend", "shadow", "restir_shade"])

    def test_scenes_sort_by_their_numbers(self):
        names = ["builtin:spheres?cost=16", "builtin:spheres?cost=4", "builtin:spheres?cost=32", "builtin:cornell"]
        self.assertEqual(sorted(names, key=PLOT.natural), ["builtin:cornell", "builtin:spheres?cost=4",
                                                          "builtin:spheres?cost=16", "builtin:spheres?cost=32"])


class OutputFolder(unittest.TestCase):
    def test_figures_go_into_plots_beside_the_report_not_among_its_images(self):
        folders = set()
        self.assertEqual(plot(full_report(), "--", folders=folders)[:2], (0, ""))  # "--": no --out
        self.assertEqual(folders, {"plots"})

    def test_out_names_another_folder(self):
        for flag in ("--out", "-o", "--output"):
            with self.subTest(flag=flag):
                folders = set()
                self.assertEqual(plot(full_report(), flag, "SCRATCH/figures/h100", folders=folders)[:2], (0, ""))
                self.assertEqual(folders, {"figures/h100"})

    def test_an_out_that_cannot_be_a_folder_is_named(self):
        (pathlib.Path(SCRATCH.name) / "a-file").write_text("")
        code, stderr, figures = plot(full_report(), "--out", "SCRATCH/a-file")
        self.assertEqual((code, figures), (2, []))
        self.assertEqual(stderr, "plot.py: SCRATCH/a-file: File exists\n")


if __name__ == "__main__":
    unittest.main()
