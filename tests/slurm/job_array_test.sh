#!/usr/bin/env bash
# Sweeps on a real Slurm cluster: a single-node cluster on this machine (scripts/slurm/
# local-cluster.sh: munged, slurmctld, slurmd from Debian's packages), a 4-task job array of a
# small lavapipe sweep submitted through scripts/slurm/submit.sh, its merge job, and the merged
# report checked against one process's run of the same sweep. The cluster is shut down and
# nothing of it left running. Exit 77 (CTest: skipped) without Slurm or root, or where slurmd
# cannot run for want of cgroups; a cluster that does not start otherwise fails with the
# daemon's name and the end of its log.
#   tests/slurm/job_array_test.sh PTBENCH SOURCE_DIR
set -euo pipefail
bin=$(realpath "${1:?usage: job_array_test.sh PTBENCH SOURCE_DIR}")
source=$(realpath "${2:?usage: job_array_test.sh PTBENCH SOURCE_DIR}")
for tool in munged slurmctld slurmd sbatch squeue; do
  command -v "$tool" >/dev/null || { echo "skipped: $tool is not installed (scripts/setup.sh installs slurm-wlm and munge)"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "skipped: a local Slurm cluster needs root (slurmd runs jobs as their user)"; exit 77; }

work=$(mktemp -d /tmp/ptbench-slurm.XXXXXX)
cluster=$work/cluster
cleanup() {
  "$source/scripts/slurm/local-cluster.sh" stop "$cluster" || true
  rm -rf "$work"
}
trap cleanup EXIT
export SLURM_CONF
started=0
SLURM_CONF=$("$source/scripts/slurm/local-cluster.sh" start "$cluster" 2>"$work/cluster.err") || started=$?
if [ "$started" != 0 ]; then
  # local-cluster.sh names the daemon that did not start and prints the end of its log. A slurmd
  # that needs the cgroup file system where none is mounted (a container's root, say) is this
  # machine's limit, not a fault of ptbench's: skipped, with the reason, as without root.
  if grep -q '^local-cluster: slurmd ' "$work/cluster.err" && grep -qi 'cgroup' "$work/cluster.err"; then
    echo "skipped: this machine cannot run slurmd (it finds no cgroup file system it can use):"
    cat "$work/cluster.err"
    exit 77
  fi
  echo "FAIL: the local Slurm cluster did not start:"
  cat "$work/cluster.err"
  exit 1
fi
export PTBENCH=$bin PTBENCH_DEVICE=llvmpipe PTBENCH_SLURM_GRES="" PTBENCH_SHARDS=4
config=$source/configs/ci.json
sweep=(--set spp=1 --set backends=rayquery --set repeats=1 --set warmup=0 --set width=8 --set height=8 --set 'options={}')
cd "$work"
read -r array merge < <("$source/scripts/slurm/submit.sh" "$config" "$work/sweep" "${sweep[@]}")
echo "submitted the job array $array and the merge job $merge"
for _ in $(seq 1 1200); do
  [ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ] && break
  sleep 0.5
done
if [ ! -f "$work/sweep/merged/report.json" ]; then
  echo "FAIL: no merged report; the jobs' output:"
  tail -n 20 "$work"/sweep/slurm-*.out "$cluster/slurmctld.log" || true
  exit 1
fi
"$bin" run "$config" "${sweep[@]}" --quiet --out "$work/single" >/dev/null
python3 - "$work/sweep/merged/report.json" "$work"/single/ci/*/report.json <<'PY'
import json, sys
merged, single = (json.load(open(path)) for path in sys.argv[1:3])
problems = []
if not merged["complete"]:
    problems.append("the merged report is incomplete")
if len(merged["sweep"]["merged_from"]) != 4:
    problems.append(f'{len(merged["sweep"]["merged_from"])} shards merged, not 4')
if len(merged["runs"]) != len(single["runs"]):
    problems.append(f'{len(merged["runs"])} runs merged, {len(single["runs"])} in one process')
for a, b in zip(merged["runs"], single["runs"]):
    if (a["id"], a["parameters"]) != (b["id"], b["parameters"]):
        problems.append(f'{a["id"]} {a["parameters"]} is {b["id"]} {b["parameters"]} in one process')
    if a["status"] != "ok":
        problems.append(f'{a["id"]}: {a["status"]} {a.get("error", "")}')
print("\n".join(problems) if problems else f'merged report: {len(merged["runs"])} runs, as one process made them')
sys.exit(1 if problems else 0)
PY
"$source/scripts/slurm/local-cluster.sh" stop "$cluster"
for pidfile in "$cluster/slurmctld.pid" "$cluster/slurmd.pid" "$cluster/munge/munged.pid"; do
  pid=$(cat "$pidfile" 2>/dev/null) || continue
  # A zombie has stopped; this machine's init may not have reaped it yet.
  if [ -e "/proc/$pid" ] && ! grep -qs '^[0-9]* (.*) Z ' "/proc/$pid/stat"; then
    echo "FAIL: $(basename "$pidfile" .pid) still runs after the cluster was stopped"
    exit 1
  fi
done
echo "ok: the cluster is down"
