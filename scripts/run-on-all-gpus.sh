#!/usr/bin/env bash
# One sweep on every GPU of this host at once: shard K of N on device K (ptbench run --shard,
# --device), then ptbench merge. CPU devices (lavapipe) are used only where there is no GPU.
#   scripts/run-on-all-gpus.sh CONFIG [ptbench run options...]
# Environment: PTBENCH_DEVICES (device indices to use instead, e.g. "0" for one GPU), PTBENCH
# (the binary; default build/ptbench), PTBENCH_OUT (default
# results/all-gpus/<config name>-<UTC stamp>): shard<K>/ holds each shard's results folder and
# log, merged/ the merged report. Exits as merge does (1 when a shard failed or runs are missing).
set -euo pipefail
config=${1:?usage: run-on-all-gpus.sh CONFIG [ptbench run options...]}
shift
bin=${PTBENCH:-build/ptbench}
name=$(basename "$config" .json)
out=${PTBENCH_OUT:-results/all-gpus/$name-$(date -u +%Y%m%dT%H%M%SZ)}
devices=${PTBENCH_DEVICES:-$("$bin" devices --json | python3 -c '
import json, sys
devices = json.load(sys.stdin)["devices"]
gpus = [d["index"] for d in devices if d["type"] != "cpu"]
print(" ".join(str(i) for i in (gpus or [d["index"] for d in devices])))')}
count=$(echo "$devices" | wc -w)
# An earlier sweep's shards there would be merged with this one's.
if [ -d "$out" ] && [ -n "$(ls -A "$out")" ]; then
  echo "run-on-all-gpus: $out holds files (an earlier sweep's?); give PTBENCH_OUT a new or empty folder" >&2
  exit 1
fi
echo "run-on-all-gpus: $config in $count shard(s) on device(s) $devices"
mkdir -p "$out"
start=$(date +%s.%N)
pids=()
k=0
for device in $devices; do
  k=$((k + 1))
  mkdir -p "$out/shard$k"
  "$bin" --device "$device" run "$config" --shard "$k/$count" --out "$out/shard$k" --quiet "$@" \
    > "$out/shard$k/log.txt" 2>&1 &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
end=$(date +%s.%N)
echo "run-on-all-gpus: the shards took $(awk "BEGIN { printf \"%.1f\", $end - $start }") s of wall-clock time"
reports=("$out"/shard*/*/*/report.json)
if [ -f "${reports[0]}" ]; then
  "$bin" merge "${reports[@]}" --out "$out/merged" || status=1
else
  echo "run-on-all-gpus: no shard wrote a report" >&2
  status=1
fi
[ $status = 0 ] || echo "run-on-all-gpus: a shard or the merge failed; see $out/shard*/log.txt" >&2
exit $status
