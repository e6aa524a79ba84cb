#!/usr/bin/python3
# The system Python: scripts/setup.sh installs numpy and matplotlib for it.
"""Plot a ptbench report: median frame GPU time per run, grouped by scene, one bar per
integrator and backend, with min-max whiskers.

    scripts/plot.py results/default/<stamp>/report.json [-o plot.png]
"""
import argparse
import json
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("report", type=pathlib.Path)
    parser.add_argument("-o", "--output", type=pathlib.Path, help="image to write (default: beside the report)")
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

    def label(run):
        p = run["parameters"]
        return f'{p["integrator"]}\n{p["backend"]}'

    scenes = sorted({r["parameters"]["scene"] for r in runs})
    series = sorted({label(r) for r in runs})
    fig, axes = plt.subplots(1, len(scenes), figsize=(4.5 * len(scenes), 4), squeeze=False)
    for axis, scene in zip(axes[0], scenes):
        chosen = [r for r in runs if r["parameters"]["scene"] == scene]
        names, medians, low, high = [], [], [], []
        for name in series:
            matching = [r for r in chosen if label(r) == name]
            if not matching:
                continue
            stats = matching[0]["frame_gpu_ms"]
            names.append(name)
            medians.append(stats["median"])
            low.append(stats["median"] - stats["min"])
            high.append(stats["max"] - stats["median"])
        axis.bar(range(len(names)), medians, yerr=[low, high], capsize=3)
        axis.set_xticks(range(len(names)), names, fontsize=7, rotation=15)
        axis.set_title(pathlib.Path(scene).name, fontsize=10)
        axis.set_ylabel("frame GPU ms (median, min-max)")
    device = report.get("device", {}).get("name", "?")
    fig.suptitle(f'{report.get("config", {}).get("name", "")} on {device}', fontsize=11)
    fig.tight_layout()
    output = args.output or args.report.with_name("frame_gpu_ms.png")
    fig.savefig(output, dpi=120)
    print(output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
