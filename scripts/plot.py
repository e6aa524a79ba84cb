#!/usr/bin/python3
# The system Python: scripts/setup.sh installs numpy and matplotlib for it.
"""Plot ptbench reports. Every figure is written as PNG and SVG, one panel per scene, with the
device, driver and date of each report at its foot; several reports (two GPUs, say) are overlaid,
their runs labelled by device.

  frame_gpu_ms        median frame GPU time per run, whiskers from the lower to the upper quartile
                      of its frames (frame_gpu_ms_samples; none with fewer than five);
  stage_breakdown     each run's median frame split into its stages and the overhead (frame -
                      stages: barriers, launch gaps, the pool's waits); a frame-timed run
                      (timing=frame), which times whole frames only, as one hatched frame total;
  relative_time       when there are megakernel runs: each other run's frame time relative to the
                      megakernel run of the same scene, backend (and BVH layout), size, timing and
                      settings (its median over the megakernel's, < 1 is faster; whiskers from
                      both runs' quartiles, the value past the whisker's end; the axis fits the
                      bars, a whisker longer than its bar runs off it), one bar per run,
                      backends never mixed;
  bounces             when there are wavefront runs timed by stage: per bounce (or pool
                      iteration), each stage's median GPU time and the live paths and shadow
                      rays; frame-timed runs, which have no stage times, are left out, the title
                      saying how many;
  sweep_<axis>        when a report sweeps it: frame time against pixels, max depth, pool size,
                      triangle count, material count or material cost (builtin:spheres'
                      materials= and cost=), one line per integrator and backend;
  convergence         when runs have a reference: relMSE against frame time (log-log), and the
                      efficiency 1/(relMSE x seconds) written beside each;
  simt                when runs have counters: simt: per bounce, SIMT utilisation (active lanes /
                      subgroup lanes) and material coherence (distinct classes per subgroup) at
                      the shading point, each run's frame time in the legend (perturbed by the
                      counters' atomics);
  clocks              when runs have counters: clocks: stacked bars of each phase's share
                      (traversal, material, light, rest) of the clocked time, per run and, for
                      the wavefront, per clocked stage (extend, shade, shadow);
  camera_path         when runs follow a camera path: per scene, each run's relMSE against its
                      frame's reference per frame (left), its FLIP against it (middle, where the
                      report has FLIP), and its GPU time per frame (right), the legend giving its
                      mean frame time and efficiency 1/(relMSE x seconds) over the path: ReSTIR
                      against plain path tracing at equal time (without a reference the relMSE
                      panel says so);
  roofline            when there are raycast runs: rays/s per backend (and BVH layout) of the
                      raycast's primary, diffuse and shadow rays beside each path tracer's, with
                      the path tracers' roofline_fraction written on their bars.

A run is labelled by what sets it apart from the others of its scene: its integrator, options,
backend and any swept parameter as docs/cli.md and configs spell them (`wavefront
compaction=false schedule=pool max_depth=5`), and the device when several reports are drawn.
Every time axis says that lower is better; a time against the megakernel's is always the run's
over the megakernel's (< 1 is faster), as `ptbench summary` writes it. Colours are Okabe and Ito's
palette, which readers with a colour-vision deficiency tell apart; lines also differ in marker and
dash, bars that mean something other than a stage in hatching.

    scripts/plot.py REPORT.json... [--out DIR]     (default: plots/ beside the first report)

Exits 0 when it drew the figures, 2 when it could not: a Python package missing, a file that is
not a report, no successful run. A run, or a part of one, that is not as ptbench writes it is left
out with a note on stderr naming where (a JSON pointer) and what was expected there.
"""
import argparse
import gzip
import json
import math
import os
import pathlib
import re
import statistics
import sys
import zlib

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker as ticker
except ImportError as error:
    # matplotlib imports numpy: either may be the one missing. Debian's packages install them for
    # the system Python, which a python3 earlier on PATH (a virtual environment's) is not.
    module = error.name or "matplotlib"
    package = "python3-numpy" if module == "numpy" else "python3-matplotlib"
    system = os.path.realpath(sys.executable) == os.path.realpath("/usr/bin/python3")
    print(f"plot.py: Python package {module} is missing" + ("" if system else f" from {sys.executable}") +
          ("" if isinstance(error, ModuleNotFoundError) else f" ({error})") +
          f"; install it with `apt-get install {package}` (or scripts/setup.sh)" +
          ("" if system else ", then run scripts/plot.py with /usr/bin/python3"), file=sys.stderr)
    sys.exit(2)

SWEPT = ["source", "backend", "width", "height", "spp", "max_depth", "rr_depth", "seed", "sampler", "counters",
         "timing"]
# Every time axis says so: a reader should not have to guess which way is good.
LOWER_IS_BETTER = "lower is better"
# Okabe and Ito's colour-blind-safe palette (blue, orange, bluish green, vermillion, sky blue,
# reddish purple, yellow, black): no meaning rests on red against green. Yellow and black come
# last, yellow being faint on white and black the colour of whiskers and reference lines.
OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#F0E442", "#000000"]
# A relative time's verdict by its interval: faster where it lies wholly below 1, slower wholly
# above, within the noise otherwise; told apart by hatching as well as by colour, and no colour
# that reads as "bad" or "good" by itself.
FASTER, SAME, SLOWER = OKABE_ITO[0], "#BBBBBB", OKABE_ITO[1]
# The frame's stages in the order a frame runs them (core/stage.h), each with a colour and a
# hatch of its own in every figure and every report: the megakernel's and the wavefront's eight
# take the palette's eight, the raycast's and ReSTIR's passes those colours again, hatched. A
# stage not named here (a newer build's) is grey, hatched, after these.
STAGE_STYLE = {
    "trace_shade": (OKABE_ITO[0], ""), "generate": (OKABE_ITO[4], ""), "extend": (OKABE_ITO[1], ""),
    "classify": (OKABE_ITO[6], ""), "shade": (OKABE_ITO[2], ""), "shadow": (OKABE_ITO[3], ""),
    "accumulate": (OKABE_ITO[5], ""), "prepare": (OKABE_ITO[7], ""),
    "spawn": (OKABE_ITO[4], "//"), "trace": (OKABE_ITO[1], "//"),
    "restir_temporal": (OKABE_ITO[0], ".."), "restir_spatial": (OKABE_ITO[2], ".."), "restir_shade": (OKABE_ITO[5], ".."),
}
STAGE_ORDER = list(STAGE_STYLE)
UNKNOWN_STAGE_STYLE = ("#BBBBBB", "xx")
# Overhead and frame totals are no stage: neutral, the frame total hatched as well.
OVERHEAD_COLOUR = "#BBBBBB"
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
DASHES = ["-", "--", ":", "-."]


def colour(index):
    return OKABE_ITO[index % len(OKABE_ITO)]


def line_style(index):
    """The index-th line's colour, marker and dash: lines that lie on one another (runs of equal
    utilisation, say) still show each marker, and past eight colours the dash tells them apart."""
    return {"color": colour(index), "marker": MARKERS[index % len(MARKERS)],
            "linestyle": DASHES[(index // len(OKABE_ITO)) % len(DASHES)]}


def log_scale(axis, which):
    """A log axis with plain tick labels (0.01, 1000; minor ones where it spans few decades):
    matplotlib's default labels go through its mathtext parser, whose pyparsing warns under
    `python3 -W`."""
    (axis.set_xscale if which == "x" else axis.set_yscale)("log")
    scale = axis.xaxis if which == "x" else axis.yaxis
    scale.set_major_formatter(PlainLogFormatter())
    scale.set_minor_formatter(PlainLogFormatter(labelOnlyBase=False))


SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


class PlainLogFormatter(ticker.LogFormatter):
    """matplotlib's choice of log ticks to label, each written 0.05, 300 or 10⁶ in plain text."""

    def _num_to_string(self, x, vmin, vmax):
        exponent = round(math.log10(x)) if x > 0 else 0
        if (exponent >= 4 or exponent <= -4) and math.isclose(x, 10.0 ** exponent):
            return f"10{str(exponent).translate(SUPERSCRIPTS)}"
        return f"{x:.0f}" if 1000 <= x < 1e6 else f"{x:.3g}"


def parameter(run, key):
    return run["_source"] if key == "source" else run["parameters"].get(key)


def setting(key, value):
    """A parameter or option as docs/cli.md, configs and `render --option` spell it: max_depth=5,
    compaction=true, schedule=pool."""
    return f"{key}={json.dumps(value) if isinstance(value, bool) else value}"


def labeller(runs, leave_out=()):
    """A label function: the integrator's name, then only the options and parameters that vary
    between runs (the report's device label bare, as it names no setting)."""
    varying = [k for k in SWEPT if k not in leave_out and len({json.dumps(parameter(r, k)) for r in runs}) > 1]
    # An option is named where it varies among the runs of its own integrator: a wavefront's
    # pool size is no difference from a megakernel, which has none.
    varying_options = {}
    for integrator in {r["parameters"]["integrator"] for r in runs}:
        own = [r for r in runs if r["parameters"]["integrator"] == integrator]
        keys = sorted({k for r in own for k in r["parameters"].get("options", {}) if k not in leave_out})
        varying_options[integrator] = [
            k for k in keys if len({json.dumps(r["parameters"].get("options", {}).get(k)) for r in own}) > 1]

    def label(run):
        p = run["parameters"]
        parts = [p["integrator"]]
        parts += [setting(k, p["options"][k]) for k in varying_options[p["integrator"]] if k in p.get("options", {})]
        parts += [str(parameter(run, k)) if k == "source" else setting(k, parameter(run, k)) for k in varying]
        return " ".join(parts)

    return label


def natural(text):
    """A sort key that orders the numbers in names as numbers: cost=4 before cost=16."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", text) if part]


def scene_name(run):
    scene = run["parameters"]["scene"]
    return scene if scene.startswith("builtin:") else pathlib.Path(scene).name


def footer(reports):
    parts = []
    for index, report in enumerate(reports):
        device = report.get("device", {})
        parts.append((f"#{index + 1}: " if len(reports) > 1 else "") +
                     f'{device.get("name", "?")}, driver {device.get("driver_info") or device.get("driver", "?")}, '
                     f'{report.get("date", "?")}')
    return "; ".join(parts)


def save(figure, folder, name, reports):
    figure.text(0.005, 0.002, footer(reports), fontsize=7, color="dimgrey", ha="left", va="bottom")
    for extension in ("png", "svg"):
        path = folder / f"{name}.{extension}"
        # Tight: a long axis title or a legend beside its panel is inside the figure, not cut off.
        figure.savefig(path, dpi=110, bbox_inches="tight", pad_inches=0.1)
        print(path)
    plt.close(figure)


def per_scene_figure(runs, title, draw, horizontal=True):
    """One panel per scene; horizontal bar panels grow with their runs so that labels stay legible."""
    scenes = sorted({scene_name(r) for r in runs}, key=natural)
    counts = [sum(scene_name(r) == s for r in runs) for s in scenes]
    heights = [0.28 * c + 1.3 for c in counts] if horizontal else [3.8] * len(scenes)
    fig, axes = plt.subplots(len(scenes), 1, squeeze=False, figsize=(12 if horizontal else 10, sum(heights) + 0.8),
                             gridspec_kw={"height_ratios": heights})
    for axis, scene in zip(axes[:, 0], scenes):
        draw(axis, [r for r in runs if scene_name(r) == scene])
        axis.set_title(scene, fontsize=10)
    # The title inside the half inch kept for it: matplotlib's default height (98% of the
    # figure) lies below that band on a tall figure, over the first panel's title.
    fig.suptitle(title, fontsize=11, y=1 - 0.12 / (sum(heights) + 0.8), va="top")
    fig.tight_layout(rect=(0, 0.02, 1, 1 - 0.5 / (sum(heights) + 0.8)))
    return fig


def spread(run):
    """A run's frame time (lower quartile, median, upper quartile) over its frames. Quartiles, not
    min and max: one slow frame (a clock change, a preemption) would set the whisker. With fewer
    than five frames' times (frame_gpu_ms_samples), as `ptbench compare` needs to judge a run, a
    run has no whisker: the upper quartile of three frames lies halfway to the slowest."""
    median = run["frame_gpu_ms"]["median"]
    samples = run.get("frame_gpu_ms_samples", [])
    if len(samples) < MIN_WHISKER_FRAMES:
        return median, median, median
    low, _, high = statistics.quantiles(samples, n=4, method="inclusive")
    return min(low, median), median, max(high, median)


MIN_WHISKER_FRAMES = 5
WHISKERS = "whiskers: quartiles of its frames, from five"


def draw_frames(axis, runs):
    label = labeller(runs)
    stats = [spread(r) for r in runs]
    axis.barh(range(len(runs)), [median for _, median, _ in stats],
              xerr=[[median - low for low, median, _ in stats], [high - median for _, median, high in stats]],
              capsize=3, color=colour(0), ecolor="black")
    axis.set_yticks(range(len(runs)), [label(r) for r in runs], fontsize=7)
    axis.invert_yaxis()
    axis.set_xlabel(f"frame GPU time (ms; median, {WHISKERS}; {LOWER_IS_BETTER})")


def timed_by_stage(run):
    """Whether a run's frame is split into stage times: a frame-timed run (timing=frame) times
    whole frames only, without the timestamps between stages that would perturb them."""
    return run["parameters"].get("timing", "stages") != "frame" and bool(run.get("stages"))


FRAME_TOTAL = "frame total (timing=frame: not split into stages)"


def stage_order(name):
    """Where a stage stands in a frame: STAGE_ORDER's place, a stage it does not name after them."""
    return STAGE_ORDER.index(name) if name in STAGE_ORDER else len(STAGE_ORDER)


def stage_colours(runs):
    """Each stage's colour and hatch: STAGE_STYLE's, the same in every figure and every report."""
    names = {s["name"] for r in runs for s in r.get("stages", [])}
    return {name: STAGE_STYLE.get(name, UNKNOWN_STAGE_STYLE) for name in names}


def draw_stages(axis, runs, colours):
    label = labeller(runs)
    split = [timed_by_stage(r) for r in runs]
    # Stacked in the order a frame runs them.
    stage_names = sorted(dict.fromkeys(s["name"] for r, by_stage in zip(runs, split) if by_stage for s in r["stages"]),
                         key=stage_order)
    lefts = [0.0] * len(runs)
    # No overhead band (nor its legend entry) where no run is split into stages.
    for name in stage_names + (["overhead"] if any(split) else []):
        if name == "overhead":
            widths = [max(0.0, r.get("overhead_gpu_ms", {}).get("median", 0.0)) if by_stage else 0.0
                      for r, by_stage in zip(runs, split)]
        else:
            widths = [sum(s["gpu_ms"]["median"] for s in r["stages"] if s["name"] == name) if by_stage else 0.0
                      for r, by_stage in zip(runs, split)]
        fill, hatch = (OVERHEAD_COLOUR, "") if name == "overhead" else colours[name]
        axis.barh(range(len(runs)), widths, left=lefts, label=name, color=fill, hatch=hatch)
        lefts = [a + w for a, w in zip(lefts, widths)]
    if not all(split):
        axis.barh(range(len(runs)), [0.0 if by_stage else r["frame_gpu_ms"]["median"] for r, by_stage in zip(runs, split)],
                  label=FRAME_TOTAL, color="white", edgecolor="black", hatch="///", linewidth=0.6)
    axis.set_yticks(range(len(runs)), [label(r) for r in runs], fontsize=7)
    axis.invert_yaxis()
    medians = "stage medians" if all(split) else "frame medians" if not any(split) else \
        "stage medians, frame medians where timing=frame"
    axis.set_xlabel(f"GPU time per frame (ms; {medians}; {LOWER_IS_BETTER})")
    axis.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))


# The megakernel's own options and their defaults: a run is compared with the megakernel run of
# the same values (a wavefront with ReSTIR with the megakernel with ReSTIR).
MEGAKERNEL_OPTIONS = {"ms_compensation": True, "restir": "off"}


def peer_key(run):
    """What a run shares with the megakernel run it is compared with."""
    p = run["parameters"]
    options = p.get("options", {})
    # Timing too: a frame-timed run is set against the frame-timed megakernel, as `ptbench summary` does.
    return (run["_source"], p["scene"], p["backend"], options.get("software_bvh"), options.get("software_builder"),
            p["width"], p["height"], p["spp"], p["max_depth"], p["rr_depth"], p["seed"], p["sampler"],
            p.get("counters", "off"), p.get("timing", "stages"),
            *(options.get(name, default) for name, default in MEGAKERNEL_OPTIONS.items()))


def draw_relative_time(axis, runs):
    """One bar per run, each its time over the megakernel's of its own backend (and BVH layout): a
    win on one backend and a loss on another are two bars, never their mean. A bar's colour and
    hatching say where its interval (the whiskers) lies: below 1 (faster), above (slower) or
    across it (within the noise), so that neither colour vision nor print in grey is needed."""
    megakernels = {(peer_key(r), r["_occurrence"]): r for r in runs if r["parameters"]["integrator"] == "megakernel"}
    others = [r for r in runs if r["parameters"]["integrator"] not in ("megakernel", "raycast")
              and (peer_key(r), r["_occurrence"]) in megakernels]
    label = labeller(others or runs, leave_out=("backend", "software_bvh", "software_builder"))
    backends = len({backend_label(r) for r in others}) > 1
    ratios, low, high, verdicts = [], [], [], []
    for run in others:
        (base_low, base_median, base_high), (own_low, own_median, own_high) = (
            spread(megakernels[(peer_key(run), run["_occurrence"])]), spread(run))
        ratios.append(own_median / base_median)
        low.append(max(0.0, ratios[-1] - own_low / base_high))
        high.append(max(0.0, own_high / base_low - ratios[-1]))
        # By the interval, as compare judges: the whole of it below 1, above 1, or across it.
        verdicts.append("faster" if ratios[-1] + high[-1] < 1 else "slower" if ratios[-1] - low[-1] > 1 else "same")
    styles = {"faster": (FASTER, "", "white", "faster (the interval below 1)"),
              "same": (SAME, "..", "black", "within the quartiles' noise"),
              "slower": (SLOWER, "//", "black", "slower (the interval above 1)")}
    for verdict, (fill, hatch, edge, legend) in styles.items():
        chosen = [i for i, v in enumerate(verdicts) if v == verdict]
        if chosen:
            axis.barh(chosen, [ratios[i] for i in chosen], xerr=[[low[i] for i in chosen], [high[i] for i in chosen]],
                      capsize=3, ecolor="black", color=fill, hatch=hatch, edgecolor=edge, linewidth=0.4, label=legend)
    if others:
        axis.legend(fontsize=6, loc="lower right")
    # Each value just past its whisker's end, where neither bar nor whisker runs (on a white ground
    # where the line at 1 crosses it); the axis is widened to make room for it.
    # The axis is sized to the bars and modest whiskers: one noisy quartile (a whisker many times
    # its bar) would squash every bar and the line at 1; such a whisker runs off the edge.
    right = max([1.0] + [v + min(u, v) for v, u in zip(ratios, high)]) * 1.15
    for y, (value, up) in enumerate(zip(ratios, high)):
        axis.annotate(f"{value:.2f}×", (min(value + up, right / 1.15), y), xytext=(4, 0), textcoords="offset points",
                      va="center", fontsize=6, zorder=3, bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5})
    axis.set_xlim(0, right)
    axis.axvline(1.0, color="black", linewidth=0.8)
    axis.set_yticks(range(len(others)), [label(r) + (f" · {backend_label(r)}" if backends else "") for r in others],
                    fontsize=7)
    axis.invert_yaxis()
    axis.set_xlabel("frame GPU time relative to the megakernel of the same backend\n"
                    f"(×; whiskers: both runs' quartiles; {LOWER_IS_BETTER}, < 1 is faster)")


def per_bounce(run):
    """A wavefront run's stages timed per bounce."""
    return [s for s in run.get("stages", []) if "gpu_ms_median_per_bounce" in s] if timed_by_stage(run) else []


def positive(values):
    """Counts for a log axis: a zero (no path left) is a gap, not a point at minus infinity."""
    return [v if v > 0 else None for v in values]


# The work counters drawn per bounce, each with a line style of its own.
WORK = {"live_paths": 0, "shadow_rays": 1, "paths_started": 2}


def draw_bounces(runs, title, colours):
    """One row per wavefront run: stage time per bounce (left), live paths and shadow rays (right),
    each panel a row of its own height so that its axis titles stay beside it."""
    # A row's two panels on one bounce axis.
    fig, axes = plt.subplots(len(runs), 2, figsize=(13, 3.6 * len(runs)), squeeze=False, sharex="row")
    label = labeller(runs)
    for row, run in enumerate(runs):
        name = f"{scene_name(run)}: {label(run)}"
        stages = per_bounce(run)
        for stage in stages:
            values = stage["gpu_ms_median_per_bounce"]
            fill, hatch = colours[stage["name"]]
            axes[row, 0].plot(range(len(values)), values, marker="o", markersize=3, color=fill,
                              linestyle="--" if hatch else "-", label=stage["name"])
        axes[row, 0].set_ylabel(f"stage GPU time (ms, median)\n{LOWER_IS_BETTER}")
        work = run.get("work_per_bounce", {})
        counted = [key for key in WORK if any(v > 0 for v in work.get(key, []))]
        for key in counted:
            axes[row, 1].plot(range(len(work[key])), positive(work[key]), markersize=3, label=key.replace("_", " "),
                              **line_style(WORK[key]))
        if counted:
            # Live paths fall by orders of magnitude from the first bounce to the last.
            log_scale(axes[row, 1], "y")
        axes[row, 1].set_ylabel("per frame (count, log)")
        # A run of one bounce has a range of zero width, whose ticks fall between integers.
        bounces = max([len(s["gpu_ms_median_per_bounce"]) for s in stages] +
                      [len(work.get(key, [])) for key in counted] + [1])
        axes[row, 0].set_xlim(-0.5, max(bounces - 0.5, 0.5))
        for axis in axes[row]:
            axis.set_xlabel("bounce (pool schedule: iteration)")
            axis.xaxis.set_major_locator(ticker.MaxNLocator(integer=True))
            axis.set_title(name, fontsize=9)
        # Each panel's legend only where it has lines: matplotlib warns of an empty one.
        if stages:
            axes[row, 0].legend(fontsize=6, loc="upper right")
        if counted:
            axes[row, 1].legend(fontsize=6, loc="upper right")
    fig.suptitle(title, fontsize=11)
    fig.align_ylabels()
    fig.tight_layout(rect=(0, 0.02, 1, 1 - 0.25 / len(runs)), h_pad=1.5)
    return fig


def spheres(run):
    return run["parameters"]["scene"].startswith("builtin:spheres")


def triangles(run):
    """builtin:spheres' triangles: the scene family whose geometry a sweep scales."""
    return (sum(run.get("material_classes", {}).values()) or None) if spheres(run) else None


def builtin_parameter(run, name):
    found = re.search(rf"[?&]{name}=(\d+)", run["parameters"]["scene"]) if spheres(run) else None
    return int(found.group(1)) if found else None


def scene_without(run, name):
    """The scene with the swept query parameter removed: what one line of a sweep shares."""
    scene = run["parameters"]["scene"]
    keys = {"triangles": ("n", "subdiv"), "materials": ("materials",), "material_cost": ("cost",)}[name]
    for key in keys:
        scene = re.sub(rf"([?&]){key}=\d+&?", r"\1", scene)
    return scene.rstrip("?&")


# Sweep axes: (file name, axis label, the run's value, whether the scene varies along it).
AXES = [
    ("pixels", "pixels per frame", lambda r: r["parameters"]["width"] * r["parameters"]["height"], False),
    ("max_depth", "max depth (segments)", lambda r: r["parameters"]["max_depth"], False),
    ("pool_size", "wavefront pool size (paths)", lambda r: r["parameters"].get("options", {}).get("pool_size"), False),
    ("triangles", "triangles (as instanced)", triangles, True),
    ("materials", "materials (builtin:spheres materials=)", lambda r: builtin_parameter(r, "materials"), True),
    ("material_cost", "car-paint cost (noise octaves)", lambda r: builtin_parameter(r, "cost"), True),
]
# The wavefront's default pool follows the frame size: a pixels sweep must not split its lines by it.
AXIS_PARAMETERS = {"pixels": ("width", "height", "pool_size"), "max_depth": ("max_depth",), "pool_size": ("pool_size",)}


def sweep_figure(runs, name, axis_label, value, scene_varies, title):
    """Frame time against one swept quantity, one line per run kind, or None when nothing sweeps it."""
    points = [r for r in runs if value(r) is not None and "raycast" not in r]
    if len({value(r) for r in points}) < 2:
        return None
    groups = [("builtin:spheres", points)] if scene_varies else [
        (s, [r for r in points if scene_name(r) == s]) for s in sorted({scene_name(r) for r in points}, key=natural)]
    groups = [(g, rs) for g, rs in groups if len({value(r) for r in rs}) >= 2]
    if not groups:
        return None
    # One line per run kind; a line of one point sweeps nothing (a pool size that follows the
    # frame size, say), and a group without a longer line is no sweep.
    plotted = []
    for group, members in groups:
        label = labeller(members, leave_out=AXIS_PARAMETERS.get(name, ()))
        lines = {}
        for run in members:
            key = label(run) + (f" ({scene_without(run, name)})" if scene_varies else "")
            lines.setdefault(key, []).append((value(run), run["frame_gpu_ms"]["median"]))
        lines = {key: line for key, line in lines.items() if len({x for x, _ in line}) >= 2}
        if lines:
            plotted.append((group, lines))
    if not plotted:
        return None
    fig, axes = plt.subplots(len(plotted), 1, figsize=(15, 4.2 * len(plotted)), squeeze=False)
    for axis, (group, lines) in zip(axes[:, 0], plotted):
        for index, (key, line) in enumerate(sorted(lines.items())):
            line.sort()
            axis.plot([x for x, _ in line], [y for _, y in line], markersize=4, label=key, **line_style(index))
        axis.set_xlabel(axis_label)
        axis.set_ylabel(f"frame GPU time (ms, median; {LOWER_IS_BETTER})")
        if max(v for v, _ in sum(lines.values(), [])) / max(1, min(v for v, _ in sum(lines.values(), []))) > 50:
            log_scale(axis, "x")
        axis.set_title(group, fontsize=10)
        axis.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.suptitle(title, fontsize=11)
    fig.tight_layout(rect=(0, 0.02, 1, 1 - 0.25 / len(plotted)))
    return fig


def draw_convergence(axis, runs):
    label = labeller(runs)
    for index, run in enumerate(runs):
        c = run["convergence"]
        seconds = run["frame_gpu_ms"]["median"] * 1e-3
        style = line_style(index)
        axis.scatter(seconds, c["relmse"], s=18, color=style["color"], marker=style["marker"])
        axis.annotate(f'{label(run)}\n1/(relMSE·s) = {c["efficiency"]:.3g}', (seconds, c["relmse"]), fontsize=6,
                      xytext=(4, 2), textcoords="offset points")
    log_scale(axis, "x")
    log_scale(axis, "y")
    axis.set_xlabel(f"frame GPU time (s, median; {LOWER_IS_BETTER})")
    axis.set_ylabel(f"relMSE against the reference ({LOWER_IS_BETTER})")


NO_REFERENCE = ("No relMSE: the config gives this camera path no reference.\n"
                "Render one image a frame with `ptbench reference SCENE --camera-path PATH.json`\n"
                "and name it as the path's `reference` (docs/config.md).")


def draw_camera_paths(runs, title):
    """Per scene, error and time along the path: relMSE per frame (where the frames have
    references), FLIP per frame (where the report has it: reports from before FLIP have not) and
    GPU ms per frame, one line per run."""
    scenes = sorted({scene_name(r) for r in runs}, key=natural)
    with_flip = any("flip" in f for r in runs for f in r["camera_path"]["frames"])
    columns = 3 if with_flip else 2
    fig, axes = plt.subplots(len(scenes), columns, squeeze=False,
                             figsize=(6.5 * columns, 3.6 * len(scenes) + 0.8))
    for row, scene in zip(axes, scenes):
        error_axis, time_axis = row[0], row[-1]
        flip_axis = row[1] if with_flip else None
        scene_runs = [r for r in runs if scene_name(r) == scene]
        label = labeller(scene_runs)
        for index, run in enumerate(scene_runs):
            path = run["camera_path"]
            frames = [f["frame"] for f in path["frames"]]
            text = f'{label(run)}: mean {path["gpu_ms_mean"]:.3g} ms a frame'
            style = dict(line_style(index), markersize=4)
            if "efficiency" in path:
                text += f', 1/(relMSE·s) = {path["efficiency"]:.3g}'
                error_axis.plot(frames, [f.get("relmse") for f in path["frames"]], label=text, **style)
            if flip_axis is not None and any("flip" in f for f in path["frames"]):
                flip_axis.plot(frames, [f.get("flip") for f in path["frames"]], label=text, **style)
            time_axis.plot(frames, [f["gpu_ms"] for f in path["frames"]], label=text, **style)
        if flip_axis is not None:
            flip_axis.set_xlabel("frame of the camera path")
            flip_axis.set_ylabel(f"FLIP against the frame's reference\n(0 to 1; {LOWER_IS_BETTER})")
            flip_axis.set_title(scene, fontsize=10)
        referenced = error_axis.has_data()
        if referenced:
            log_scale(error_axis, "y")
        else:
            error_axis.text(0.5, 0.5, NO_REFERENCE, transform=error_axis.transAxes, ha="center", va="center",
                            fontsize=9, wrap=True)
            error_axis.set_xticks([])
            error_axis.set_yticks([])
        error_axis.set_xlabel("frame of the camera path")
        error_axis.set_ylabel(f"relMSE against the frame's reference\n{LOWER_IS_BETTER}")
        error_axis.set_title(scene, fontsize=10)
        time_axis.set_xlabel("frame of the camera path")
        for axis in (error_axis, time_axis, flip_axis):
            if axis is not None and axis.has_data():
                axis.xaxis.set_major_locator(ticker.MaxNLocator(integer=True))
        time_axis.set_ylabel(f"frame GPU time (ms; {LOWER_IS_BETTER})")
        time_axis.set_title(scene, fontsize=10)
        (error_axis if referenced else time_axis).legend(fontsize=6)
    fig.suptitle(title + ": along the camera path", fontsize=11)
    fig.tight_layout(rect=(0, 0.02, 1, 1 - 0.5 / (3.6 * len(scenes) + 0.8)))
    return fig


def draw_simt(runs, title):
    """Per scene, two panels: utilisation and coherence per bounce, one line per run. Runs that
    measured the same per bounce (the megakernel's SER variants often do) are one line naming
    them all: otherwise their legend entries point at lines hidden under one another."""
    scenes = sorted({scene_name(r) for r in runs}, key=natural)
    fig, axes = plt.subplots(len(scenes), 2, figsize=(14, 3.8 * len(scenes)), squeeze=False)
    for row, scene in enumerate(scenes):
        chosen = [r for r in runs if scene_name(r) == scene]
        label = labeller(chosen)
        lines = {}
        for run in chosen:
            per_bounce = run["simt"]["per_bounce"]
            series = json.dumps([[b["bounce"], b["utilisation"], b["coherence"]] for b in per_bounce])
            lines.setdefault(series, []).append(f'{label(run)} ({run["frame_gpu_ms"]["median"]:.1f} ms)')
        for index, (series, names) in enumerate(lines.items()):
            bounces, utilisation, coherence = zip(*json.loads(series)) if series != "[]" else ((), (), ())
            style = dict(line_style(index), markersize=4, label="\n".join(names))
            axes[row, 0].plot(list(bounces), list(utilisation), **style)
            axes[row, 1].plot(list(bounces), list(coherence), **style)
        axes[row, 0].set_ylim(0, 1.05)
        axes[row, 0].set_ylabel("SIMT utilisation\n(active / subgroup lanes)")
        axes[row, 1].set_ylabel("material classes\nper subgroup")
        for axis in axes[row]:
            axis.set_xlabel("bounce (1: camera rays' hits)")
            axis.xaxis.set_major_locator(ticker.MaxNLocator(integer=True))
            axis.set_title(scene, fontsize=10)
        axes[row, 1].legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.suptitle(title + " (counters: simt; their frame times are perturbed by the counters)", fontsize=11)
    fig.align_ylabels()
    fig.tight_layout(rect=(0, 0.02, 1, 1 - 0.3 / len(scenes)))
    return fig


PHASES = ["traversal", "material", "light", "rest"]


def clock_bars(runs):
    """(label, shares) per bar: each run's phases, then a wavefront's per stage."""
    label = labeller(runs)
    bars = []
    for run in runs:
        clocks = run["clocks"]
        bars.append((label(run), [clocks["phases"][phase] or 0 for phase in PHASES]))
        for stage in clocks.get("per_stage", []):
            bars.append((f'{label(run)}: {stage["stage"]}', [stage["phases"][phase] or 0 for phase in PHASES]))
    return bars


def draw_clocks(axis, runs):
    """Stacked horizontal bars: each bar a run (or a wavefront stage), split by phase share."""
    bars = clock_bars(runs)
    left = [0.0] * len(bars)
    for index, phase in enumerate(PHASES):
        widths = [shares[index] for _, shares in bars]
        axis.barh(range(len(bars)), widths, left=left, label=phase, color=colour(index))
        left = [a + b for a, b in zip(left, widths)]
    axis.set_yticks(range(len(bars)))
    axis.set_yticklabels([name for name, _ in bars], fontsize=7)
    axis.invert_yaxis()
    axis.set_xlim(0, 1)
    axis.set_xlabel("share of the clocked lane-cycles (subgroup clocks)")
    axis.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))


def backend_label(run):
    p = run["parameters"]
    options = p.get("options", {})
    layout, builder = options.get("software_bvh"), options.get("software_builder")
    return p["backend"] + (f" {layout}" if layout else "") + (f" {builder}" if builder else "")


def draw_roofline(axis, runs):
    """Grouped bars: one group per backend, one bar per kind of rays or path tracer."""
    def kind(run):
        p = run["parameters"]
        return f'raycast {p.get("options", {}).get("rays", "?")}' if "raycast" in run else p["integrator"] + (
            f' {p["options"]["schedule"]}' if "schedule" in p.get("options", {}) else "")

    backends = list(dict.fromkeys(backend_label(r) for r in runs))
    kinds = list(dict.fromkeys(kind(r) for r in runs))
    width = 0.8 / len(kinds)
    for k, name in enumerate(kinds):
        for b, backend in enumerate(backends):
            chosen = [r for r in runs if kind(r) == name and backend_label(r) == backend]
            if not chosen:
                continue
            run = chosen[0]
            rate = (run["raycast"] if "raycast" in run else run["throughput"])["rays_per_s"] * 1e-6
            x = b + (k - (len(kinds) - 1) / 2) * width
            axis.bar(x, rate, width, color=colour(k), label=name if b == 0 else None,
                     hatch="" if "raycast" in run else "//")
            fraction = run.get("roofline_fraction")
            if isinstance(fraction, (int, float)):
                axis.text(x, rate, f"{fraction:.2f}", ha="center", va="bottom", fontsize=6)
    axis.set_xticks(range(len(backends)), backends, fontsize=8)
    log_scale(axis, "y")
    axis.set_ylabel("Mrays/s (log)")
    axis.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))


class Unplottable(Exception):
    """Input with nothing to plot: an unreadable file, one that is not a report, no successful run."""


class Malformed(Exception):
    """Where a report is not as ptbench writes it: the JSON pointer, what was expected, what was found."""


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


# What plot.py reads of a report, no more (`ptbench compare` checks the rest): leaves are (what is
# expected, test); objects name the keys read ("key?" optional; "*" the shape of every other key,
# free without it) and lists their items ([item]). Options that key a run's peers are hashable.
NUMBER = ("a number", is_number)
POSITIVE = ("a number > 0", lambda v: is_number(v) and v > 0)
RATE = ("a number >= 0", lambda v: is_number(v) and v >= 0)
COUNT = ("a count", lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0)
NUMBER_OR_NULL = ("a number or null", lambda v: v is None or is_number(v))
TEXT = ("a string", lambda v: isinstance(v, str))
SCALAR = ("a string, number, boolean or null", lambda v: v is None or isinstance(v, (str, bool)) or is_number(v))
OPTIONS = {"pool_size?": COUNT, **{f"{name}?": SCALAR for name in (
    "software_bvh", "software_builder", "schedule", "rays", *MEGAKERNEL_OPTIONS)}}
PARAMETERS = {"scene": TEXT, "integrator": TEXT, "backend": TEXT, "sampler": TEXT, "width": COUNT, "height": COUNT,
              "spp": COUNT, "max_depth": COUNT, "rr_depth": COUNT, "seed": COUNT, "counters?": TEXT, "timing?": TEXT,
              "options?": OPTIONS}
# A run that did not finish is counted (its parameters pair the runs after it), not drawn.
UNFINISHED_RUN = {"parameters": PARAMETERS}
RUN = {"parameters": PARAMETERS, "frame_gpu_ms": {"median": POSITIVE, "min?": NUMBER, "max?": NUMBER}}
PHASE_SHARES = {phase: NUMBER_OR_NULL for phase in PHASES}
# A run's optional parts: one that is malformed is left out of its figures, the run drawn in the rest.
SECTIONS = {
    "stages": [{"name": TEXT, "gpu_ms": {"median": NUMBER}, "gpu_ms_median_per_bounce?": [NUMBER]}],
    "overhead_gpu_ms": {"median": NUMBER},
    "frame_gpu_ms_samples": [POSITIVE],
    "work_per_bounce": {"*": [NUMBER]},
    "material_classes": {"*": NUMBER},
    "convergence": {"relmse?": NUMBER, "flip?": NUMBER, "efficiency?": NUMBER},
    "camera_path": {"frames": [{"frame": NUMBER, "gpu_ms": NUMBER, "relmse?": NUMBER, "flip?": NUMBER}],
                    "gpu_ms_mean": NUMBER, "efficiency?": NUMBER},
    "simt": {"per_bounce": [{"bounce": NUMBER, "utilisation": NUMBER_OR_NULL, "coherence": NUMBER_OR_NULL}]},
    "clocks": {"phases": PHASE_SHARES, "per_stage?": [{"stage": TEXT, "phases": PHASE_SHARES}]},
    "raycast": {"rays_per_s": RATE},
    "throughput": {"rays_per_s": RATE},
}
REPORT_SECTIONS = {"device": {"name?": TEXT}, "config": {"name?": TEXT}}
# Past this many notes on one report, the rest are counted: a report of another schema would
# otherwise repeat one note for every run.
NOTES_PER_REPORT = 10


def check(value, shape, at):
    """Raises Malformed at the first place where value departs from shape."""
    def malformed(expected):
        return Malformed(f"{at}: expected {expected}, got {json.dumps(value)[:40]}")

    if isinstance(shape, tuple):
        if not shape[1](value):
            raise malformed(shape[0])
    elif isinstance(shape, list):
        if not isinstance(value, list):
            raise malformed("a list")
        for index, item in enumerate(value):
            check(item, shape[0], f"{at}/{index}")
    else:
        if not isinstance(value, dict):
            raise malformed("an object")
        named = {key.rstrip("?"): (inner, key.endswith("?")) for key, inner in shape.items() if key != "*"}
        for key, (inner, optional) in named.items():
            if key in value:
                check(value[key], inner, f"{at}/{key}")
            elif not optional:
                raise Malformed(f"{at}/{key}: missing")
        for key, item in value.items():
            if key not in named and "*" in shape:
                check(item, shape["*"], f"{at}/{key}")


def read_report(path):
    try:
        data = path.read_bytes()
        # results/published keeps its larger reports gzip-compressed.
        return json.loads(gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data)
    except OSError as error:
        raise Unplottable(f"{path}: {error.strerror or error}") from None
    except (ValueError, EOFError, zlib.error, RecursionError) as error:  # ValueError: not JSON, not UTF-8
        raise Unplottable(f"{path}: not a JSON report ({error})") from None


def without_malformed(value, sections, at, notes):
    """value less the sections that are not as ptbench writes them, each with a note."""
    value = dict(value)
    for key, shape in sections.items():
        if key in value:
            try:
                check(value[key], shape, f"{at}/{key}")
            except Malformed as problem:
                notes.append(f"{problem}; its {key} is left out")
                del value[key]
    return value


def load(paths):
    """The reports and their successful runs, each run tagged with its report's device. Runs, and
    parts of runs, that are not as ptbench writes them are left out, each with a note."""
    reports, notes = [], []
    for path in paths:
        report = read_report(path)
        if not isinstance(report, dict) or not isinstance(report.get("runs"), list):
            raise Unplottable(f"{path}: not a ptbench report (an object with a runs list)")
        notes.append([])
        reports.append(without_malformed(report, REPORT_SECTIONS, "", notes[-1]))
    names = [r.get("device", {}).get("name", "?") for r in reports]
    runs, statuses, left_out = [], [], 0
    for index, (report, name, report_notes) in enumerate(zip(reports, names, notes)):
        # Reports of one device are told apart by their number in the footer.
        source = name if names.count(name) == 1 else f"#{index + 1}"
        # A sweep point given twice (a scene listed twice) has the same parameters twice: its k-th
        # run of an integrator variant is compared with the k-th megakernel run there. Failed
        # runs count, so that one failure does not shift the pairs after it.
        occurrences = {}
        for number, run in enumerate(report["runs"]):
            ok = isinstance(run, dict) and run.get("status") == "ok"
            try:
                check(run, RUN if ok else UNFINISHED_RUN, f"/runs/{number}")
            except Malformed as problem:
                report_notes.append(f"{problem}; that run is left out")
                left_out += 1
                continue
            statuses.append(str(run.get("status")))
            run = dict(without_malformed(run, SECTIONS, f"/runs/{number}", report_notes), _source=source)
            variant = (peer_key(run), run["parameters"]["integrator"], json.dumps(run["parameters"].get("options", {})))
            run["_occurrence"] = occurrences.get(variant, 0)
            occurrences[variant] = run["_occurrence"] + 1
            if ok:
                runs.append(run)
    for path, report_notes in zip(paths, notes):
        for text in report_notes[:NOTES_PER_REPORT]:
            print(f"plot.py: {path}: {text}", file=sys.stderr)
        if len(report_notes) > NOTES_PER_REPORT:
            print(f"plot.py: {path}: {len(report_notes) - NOTES_PER_REPORT} more notes like these", file=sys.stderr)
    if not runs:
        counts = [f"{statuses.count(s)} {s}" for s in dict.fromkeys(statuses)] + (
            [f"{left_out} left out as malformed"] if left_out else [])
        raise Unplottable(f"{', '.join(map(str, paths))}: no successful run to plot "
                          f"({', '.join(counts) if counts else 'no runs'})")
    return reports, runs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("reports", type=pathlib.Path, nargs="+", metavar="REPORT.json")
    parser.add_argument("-o", "--out", "--output", dest="out", type=pathlib.Path,
                        help="folder for the figures (default: plots/ in the first report's folder)")
    args = parser.parse_args()
    # Not the report's own folder: that holds the runs' images, and figures among them get lost.
    folder = args.out or args.reports[0].parent / "plots"
    try:
        reports, runs = load(args.reports)
        folder.mkdir(parents=True, exist_ok=True)
        draw_figures(reports, runs, folder)
    except Unplottable as problem:
        print(f"plot.py: {problem}", file=sys.stderr)
        return 2
    except OSError as error:  # the folder or a figure cannot be written
        print(f"plot.py: {error.filename or folder}: {error.strerror or error}", file=sys.stderr)
        return 2
    return 0


# More rows than this make a figure too tall to read.
BOUNCE_ROWS = 12


def draw_figures(reports, runs, folder):
    title = " + ".join(dict.fromkeys(f'{r.get("config", {}).get("name", "")} on {r.get("device", {}).get("name", "?")}'
                                     for r in reports))
    colours = stage_colours(runs)
    save(per_scene_figure(runs, title, draw_frames), folder, "frame_gpu_ms", reports)
    save(per_scene_figure(runs, title, lambda axis, chosen: draw_stages(axis, chosen, colours)), folder,
         "stage_breakdown", reports)
    megakernel_scenes = {scene_name(r) for r in runs if r["parameters"]["integrator"] == "megakernel"}
    compared = [r for r in runs if scene_name(r) in megakernel_scenes and "raycast" not in r]
    if any(r["parameters"]["integrator"] not in ("megakernel", "raycast") for r in compared):
        save(per_scene_figure(compared, title + ": time relative to the megakernel (< 1 is faster)",
                              draw_relative_time), folder, "relative_time", reports)
    wavefronts = [r for r in runs if r["parameters"]["integrator"] == "wavefront"]
    # A frame-timed run has no stage times: its row would be an empty panel.
    drawn = [r for r in wavefronts if timed_by_stage(r)]
    if drawn:
        notes = [f"{len(wavefronts) - len(drawn)} frame-timed runs left out (timing=frame: no stage times)"
                 ] if len(drawn) < len(wavefronts) else []
        if len(drawn) > BOUNCE_ROWS:
            notes.append(f"the first {BOUNCE_ROWS} of {len(drawn)} drawn")
        save(draw_bounces(drawn[:BOUNCE_ROWS], title + ": wavefront per bounce" +
                          (f" ({'; '.join(notes)})" if notes else ""), colours), folder, "bounces", reports)
    for name, axis_label, value, scene_varies in AXES:
        figure = sweep_figure(runs, name, axis_label, value, scene_varies, title)
        if figure:
            save(figure, folder, f"sweep_{name}", reports)
    converged = [r for r in runs if {"relmse", "efficiency"} <= r.get("convergence", {}).keys()]
    if converged:
        save(per_scene_figure(converged, title + ": error against time (lower left is better)", draw_convergence,
                              horizontal=False), folder, "convergence", reports)
    pathed = [r for r in runs if "camera_path" in r]
    if pathed:
        save(draw_camera_paths(pathed, title), folder, "camera_path", reports)
    counted = [r for r in runs if "simt" in r]
    if counted:
        save(draw_simt(counted, title), folder, "simt", reports)
    clocked = [r for r in runs if "clocks" in r]
    if clocked:
        save(per_scene_figure(clocked, title + ": where the time goes (counters: clocks; their frame times are "
                              "perturbed by the clocks)", draw_clocks), folder, "clocks", reports)
    if any("raycast" in r for r in runs):
        rated = [r for r in runs if "raycast" in r or "throughput" in r]
        save(per_scene_figure(rated, title + " (numbers on bars: roofline_fraction)", draw_roofline, horizontal=False),
             folder, "roofline", reports)


if __name__ == "__main__":
    sys.exit(main())
