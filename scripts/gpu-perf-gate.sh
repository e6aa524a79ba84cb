#!/usr/bin/env bash
# The GPU performance gate (docs/testing.md, "GPU performance gate"): runs configs/perf-gate.json on this
# machine's GPU and compares its report with this GPU model's baseline,
# results/baselines/<gpu>/report.json.gz, where <gpu> is the report's device name in lower case with
# every run of other characters a '-' (NVIDIA H100 80GB HBM3: nvidia-h100-80gb-hbm3).
#   scripts/gpu-perf-gate.sh [--out DIR] [--update-baseline] [ptbench run options...]
#       measure, then judge (or, with --update-baseline, make the new report the baseline)
#   scripts/gpu-perf-gate.sh --report NEW.json [--update-baseline]
#       judge (or promote) a report measured already, on this machine or another; no GPU work
#   scripts/gpu-perf-gate.sh --compare-only BASE.json NEW.json
#       the compare step alone, as the gate prints it
# Exit 0: no run slower beyond the threshold (its 99% interval wholly above it); 1: a regression;
# 2: undecided (no baseline for this GPU, runs missing or failed on one side, an unsure run, a
# report from a CPU device) or a
# usage mistake; 3: the measurement wrote no report.
# Environment: PTBENCH (default build/ptbench), PERF_GATE_BASELINES (default results/baselines),
# PERF_GATE_THRESHOLD (default 3%). With --out DIR, DIR ends with report.json and compare.txt
# (every stage and bounce) at its top, for the device tool to bring back.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${PTBENCH:-$root/build/ptbench}
baselines=${PERF_GATE_BASELINES:-$root/results/baselines}
threshold=${PERF_GATE_THRESHOLD:-3%}
usage="usage: gpu-perf-gate.sh [--out DIR] [--update-baseline] [run options...] | --report NEW.json [--update-baseline] | --compare-only BASE.json NEW.json"

# The runs' verdicts and the summary line; with a third argument, the full table into that file.
compare() {
  local status=0
  if [ $# -ge 3 ]; then "$bin" compare "$1" "$2" --threshold "$threshold" > "$3" || true; fi
  "$bin" compare "$1" "$2" --threshold "$threshold" --runs-only || status=$?
  return $status
}

# The report's device name, its slug, and how many of its runs did not finish ok; for a file that
# is no report, one line saying why (exit 2 follows), not Python's traceback.
device_of() {
  python3 - "$1" <<'EOF'
import gzip, json, re, sys
path = sys.argv[1]
try:
    with open(path, "rb") as f:
        data = f.read()
    report = json.loads(gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data)
except (OSError, EOFError, ValueError) as error:
    sys.exit(f"gpu-perf-gate: {path}: not a JSON report ({error})")
device = report.get("device") if isinstance(report, dict) else None
name = device.get("name") if isinstance(device, dict) else None
if not isinstance(name, str) or not name:
    sys.exit(f"gpu-perf-gate: {path}: the report names no device")
runs = report.get("runs", [])
if not isinstance(runs, list):
    sys.exit(f"gpu-perf-gate: {path}: the report has no runs list")
# One line each: a newline in the name would otherwise become the slug (a baseline anywhere).
print(" ".join(name.split()))
print(re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-"))
print(sum(not isinstance(run, dict) or run.get("status") != "ok" for run in runs))
EOF
}

out="" report="" update=false run_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --compare-only)
      [ $# -eq 3 ] || { echo "$usage" >&2; exit 2; }
      status=0
      compare "$2" "$3" || status=$?
      exit $status ;;
    --report | --out)
      # A missing value is a usage mistake (2): bash's own ${2:?} would exit 1, a regression's code.
      if [ -z "${2:-}" ] || [[ $2 == -* ]]; then
        echo "gpu-perf-gate: $1 needs a value" >&2
        echo "$usage" >&2
        exit 2
      fi
      if [ "$1" = --report ]; then report=$2; else out=$2; fi
      shift 2 ;;
    --update-baseline) update=true; shift ;;
    -h | --help) echo "$usage"; exit 0 ;;
    *) run_args+=("$1"); shift ;;
  esac
done

if [ -z "$report" ]; then
  out=${out:-$(mktemp -d "${TMPDIR:-/tmp}/perf-gate.XXXXXX")}
  mkdir -p "$out"
  status=0
  "$bin" run "$root/configs/perf-gate.json" --out "$out" --quiet "${run_args[@]}" || status=$?
  # Interrupted (130, 143): the report is partial; nothing to judge.
  if [ $status = 130 ] || [ $status = 143 ]; then exit $status; fi
  report=$(ls -t "$out"/*/*/report.json 2> /dev/null | head -1 || true)
  if [ -z "$report" ]; then
    echo "gpu-perf-gate: ptbench run exited $status and wrote no report; nothing to compare" >&2
    exit 3
  fi
  # Exit 1 from run: some runs failed (error rows); compare lists them as missing.
  [ $status = 0 ] || echo "gpu-perf-gate: ptbench run exited $status; comparing the runs it measured" >&2
  cp "$report" "$out/report.json"
  report=$out/report.json
fi

[ -f "$report" ] || { echo "gpu-perf-gate: $report: no such report" >&2; exit 2; }
{ read -r gpu && read -r slug && read -r unfinished; } < <(device_of "$report") || exit 2
[ -n "$slug" ] || { echo "gpu-perf-gate: $report: its device name \"$gpu\" has no letter or digit to name a baseline by" >&2; exit 2; }
baseline=$baselines/$slug/report.json.gz

if $update; then
  # A baseline with failed runs would leave them "missing" in every comparison after it.
  if [ "$unfinished" != 0 ]; then
    echo "gpu-perf-gate: $unfinished run(s) of $report did not finish ok; not a baseline" >&2
    exit 2
  fi
  if [ -f "$baseline" ]; then
    echo "== $gpu: the new report against the baseline it replaces"
    compare "$baseline" "$report" || true
  fi
  mkdir -p "$(dirname "$baseline")"
  # Baselines are kept gzipped, as published reports are; compare reads both.
  if [ "$(head -c 2 "$report" | od -An -tx1 | tr -d ' \n')" = 1f8b ]; then
    cp "$report" "$baseline.tmp"
  else
    gzip -9nc "$report" > "$baseline.tmp"
  fi
  mv "$baseline.tmp" "$baseline"
  echo "gpu-perf-gate: $baseline is now the baseline of $gpu; commit it, saying why the times moved"
  exit 0
fi

if [ ! -f "$baseline" ]; then
  echo "gpu-perf-gate: no baseline for $gpu: $baseline does not exist. To make this measurement the" \
    "baseline: scripts/gpu-perf-gate.sh --report $report --update-baseline, then commit $baseline" >&2
  exit 2
fi

echo "== $gpu: $report against $baseline (threshold $threshold)"
status=0
if [ -n "$out" ]; then compare "$baseline" "$report" "$out/compare.txt" || status=$?; else compare "$baseline" "$report" || status=$?; fi
exit $status
