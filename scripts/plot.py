#!/usr/bin/python3
# The system Python: scripts/setup.sh installs numpy and matplotlib for it.
"""Plot a ptbench report, one panel per scene:

  frame_gpu_ms.png      median frame GPU time per run, min-max whiskers;
  stage_breakdown.png   each run's median frame split into its stages and the overhead
                        (frame - stages: barriers, launch gaps, the pool's waits);
  simt.png              when the report has runs with counters: simt: per bounce, each path
                        tracer's SIMT utilisation (active lanes / subgroup lanes) and material
                        coherence (distinct material classes per subgroup) at its shading point,
                        its frame time beside its name (perturbed by the counters' atomics);
  roofline.png          when the report has raycast runs: rays/s per backend (and BVH layout)
                        of the raycast's primary, diffuse and shadow rays (the trace stage
                        alone) beside each path tracer's (extension and shadow rays over the
                        frame), with the path tracers' roofline_fraction written on their bars.

A run is labelled by what sets it apart from the others of its scene: integrator, options,
backend and any swept parameter.

    scripts/plot.py results/default/<stamp>/report.json [-o DIR]
"""
import argparse
import json
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SWEPT = ["backend", "width", "height", "spp", "max_depth", "rr_depth", "seed", "sampler", "counters"]
SHORT = {"max_depth": "depth", "material_queues": "matq", "compaction": "compact", "schedule": "", "pool_size": "pool",
         "reorder_from": "from"}


def labeller(runs):
    """A label function showing only the parameters that vary between runs."""
    varying = [k for k in SWEPT if len({json.dumps(r["parameters"].get(k)) for r in runs}) > 1]
    option_keys = sorted({k for r in runs for k in r["parameters"].get("options", {})})
    varying_options = [k for k in option_keys
                       if len({json.dumps(r["parameters"].get("options", {}).get(k)) for r in runs}) > 1]

    def label(run):
        p = run["parameters"]
        parts = [p["integrator"]]
        for key in varying_options:
            if key in p.get("options", {}):
                value = p["options"][key]
                name = SHORT.get(key, key)
                if isinstance(value, bool):
                    parts.append(("+" if value else "-") + name)
                else:
                    parts.append(f"{name}={value}" if name else str(value))
        parts += [f"{SHORT.get(k, k)}={p[k]}" for k in varying]
        return " ".join(parts)

    return label


def per_scene_figure(runs, title, draw):
    scenes = sorted({r["parameters"]["scene"] for r in runs})
    fig, axes = plt.subplots(len(scenes), 1, figsize=(max(8, 0.45 * len(runs) / len(scenes) + 3), 3.8 * len(scenes)),
                             squeeze=False)
    for axis, scene in zip(axes[:, 0], scenes):
        chosen = [r for r in runs if r["parameters"]["scene"] == scene]
        draw(axis, chosen)
        axis.set_title(pathlib.Path(scene).name, fontsize=10)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


def draw_frames(axis, runs):
    label = labeller(runs)
    names = [label(r) for r in runs]
    stats = [r["frame_gpu_ms"] for r in runs]
    medians = [s["median"] for s in stats]
    axis.bar(range(len(runs)), medians, yerr=[[s["median"] - s["min"] for s in stats],
                                              [s["max"] - s["median"] for s in stats]], capsize=3)
    axis.set_xticks(range(len(runs)), names, fontsize=7, rotation=30, ha="right")
    axis.set_ylabel("frame GPU ms (median, min-max)")


def draw_stages(axis, runs):
    label = labeller(runs)
    stage_names = []
    for run in runs:
        for stage in run.get("stages", []):
            if stage["name"] not in stage_names:
                stage_names.append(stage["name"])
    colours = plt.get_cmap("tab10")
    bottoms = [0.0] * len(runs)
    for index, name in enumerate(stage_names + ["overhead"]):
        heights = []
        for run in runs:
            if name == "overhead":
                heights.append(max(0.0, run.get("overhead_gpu_ms", {}).get("median", 0.0)))
            else:
                heights.append(sum(s["gpu_ms"]["median"] for s in run.get("stages", []) if s["name"] == name))
        axis.bar(range(len(runs)), heights, bottom=bottoms, label=name,
                 color="lightgrey" if name == "overhead" else colours(index % 10))
        bottoms = [b + h for b, h in zip(bottoms, heights)]
    axis.set_xticks(range(len(runs)), [label(r) for r in runs], fontsize=7, rotation=30, ha="right")
    axis.set_ylabel("GPU ms per frame (stage medians)")
    axis.legend(fontsize=7, ncol=4)


def backend_label(run):
    p = run["parameters"]
    layout = p.get("options", {}).get("software_bvh")
    return p["backend"] + (f" {layout}" if layout else "")


def draw_roofline(axis, runs):
    """Grouped bars: one group per backend, one bar per kind of rays or path tracer."""
    def kind(run):
        p = run["parameters"]
        return f'raycast {p["options"]["rays"]}' if "raycast" in run else p["integrator"] + (
            f' {p["options"]["schedule"]}' if "schedule" in p.get("options", {}) else "")

    backends = list(dict.fromkeys(backend_label(r) for r in runs))
    kinds = list(dict.fromkeys(kind(r) for r in runs))
    width = 0.8 / len(kinds)
    colours = plt.get_cmap("tab10")
    for k, name in enumerate(kinds):
        for b, backend in enumerate(backends):
            chosen = [r for r in runs if kind(r) == name and backend_label(r) == backend]
            if not chosen:
                continue
            run = chosen[0]
            rate = (run["raycast"] if "raycast" in run else run["throughput"])["rays_per_s"] * 1e-6
            x = b + (k - (len(kinds) - 1) / 2) * width
            axis.bar(x, rate, width, color=colours(k % 10), label=name if b == 0 else None,
                     hatch="" if "raycast" in run else "//")
            fraction = run.get("roofline_fraction")
            if isinstance(fraction, (int, float)):
                axis.text(x, rate, f"{fraction:.2f}", ha="center", va="bottom", fontsize=6)
    axis.set_xticks(range(len(backends)), backends, fontsize=8)
    axis.set_yscale("log")
    axis.set_ylabel("Mrays/s (log)")
    axis.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))


def draw_simt(runs, title):
    """Per scene, two panels: utilisation and coherence per bounce, one line per run."""
    scenes = sorted({r["parameters"]["scene"] for r in runs})
    fig, axes = plt.subplots(len(scenes), 2, figsize=(13, 3.6 * len(scenes)), squeeze=False)
    for row, scene in enumerate(scenes):
        chosen = [r for r in runs if r["parameters"]["scene"] == scene]
        label = labeller(chosen)
        for run in chosen:
            bounces = [b["bounce"] for b in run["simt"]["per_bounce"]]
            name = f'{label(run)} ({run["frame_gpu_ms"]["median"]:.1f} ms)'
            axes[row, 0].plot(bounces, [b["utilisation"] for b in run["simt"]["per_bounce"]], marker="o",
                              markersize=3, label=name)
            axes[row, 1].plot(bounces, [b["coherence"] for b in run["simt"]["per_bounce"]], marker="o",
                              markersize=3, label=name)
        axes[row, 0].set_ylim(0, 1.05)
        axes[row, 0].set_ylabel("SIMT utilisation")
        axes[row, 1].set_ylabel("material classes per subgroup")
        for axis in axes[row]:
            axis.set_xlabel("bounce (1: camera rays' hits)")
            axis.set_title(pathlib.Path(scene).name, fontsize=10)
        axes[row, 1].legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.suptitle(title + " (counters: simt; their frame times are perturbed by the counters)", fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.3 / len(scenes)))
    return fig


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("report", type=pathlib.Path)
    parser.add_argument("-o", "--output", type=pathlib.Path, help="folder for the images (default: the report's)")
    args = parser.parse_args()
    try:
        report = json.loads(args.report.read_text())
    except (OSError, json.JSONDecodeError) as error:
        print(f"plot.py: {args.report}: {error}", file=sys.stderr)
        return 1
    runs = [r for r in report.get("runs", []) if r.get("status") == "ok"]
    if not runs:
        print(f"plot.py: {args.report}: no successful runs to plot", file=sys.stderr)
        return 1
    folder = args.output or args.report.parent
    folder.mkdir(parents=True, exist_ok=True)
    title = f'{report.get("config", {}).get("name", "")} on {report.get("device", {}).get("name", "?")}'
    figures = [("frame_gpu_ms.png", draw_frames), ("stage_breakdown.png", draw_stages)]
    if any("raycast" in r for r in runs):
        figures.append(("roofline.png", draw_roofline))
    for name, draw in figures:
        figure = per_scene_figure(runs, title + (" (numbers on bars: roofline_fraction)" if name == "roofline.png" else ""),
                                  draw)
        figure.savefig(folder / name, dpi=110)
        plt.close(figure)
        print(folder / name)
    counted = [r for r in runs if "simt" in r]
    if counted:
        figure = draw_simt(counted, title)
        figure.savefig(folder / "simt.png", dpi=110)
        plt.close(figure)
        print(folder / "simt.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
