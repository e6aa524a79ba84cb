#!/usr/bin/env bash
# Submits a sweep to Slurm: a job array of N shards (scripts/slurm/sweep.sbatch, one GPU each)
# and a merge job that runs once every shard succeeded (--dependency=afterok). Prints the two
# job ids. The merged report lands in OUTDIR/merged/.
#   scripts/slurm/submit.sh CONFIG OUTDIR [ptbench run options...]
# Environment: PTBENCH_SHARDS (N, default 4), PTBENCH_SLURM_GRES (default gpu:1; empty for none),
# PTBENCH (the binary, default build/ptbench made absolute), PTBENCH_SBATCH_OPTIONS (more sbatch
# options, e.g. "--partition=gpu --time=02:00:00").
set -euo pipefail
config=${1:?usage: submit.sh CONFIG OUTDIR [ptbench run options...]}
out=${2:?usage: submit.sh CONFIG OUTDIR [ptbench run options...]}
shift 2
here=$(cd "$(dirname "$0")" && pwd)
shards=${PTBENCH_SHARDS:-4}
gres=${PTBENCH_SLURM_GRES-gpu:1}
export PTBENCH=$(realpath "${PTBENCH:-build/ptbench}")
config=$(realpath "$config")
# An earlier sweep's shards there would be resumed in place of this one's, or merged with them.
if [ -d "$out" ] && [ -n "$(ls -A "$out")" ]; then
  echo "submit.sh: $out holds files (an earlier sweep's?); give a new or empty folder for this sweep" >&2
  exit 1
fi
mkdir -p "$out"
out=$(realpath "$out")
# shellcheck disable=SC2086
array=$(sbatch --parsable --array="1-$shards" ${gres:+--gres=$gres} ${PTBENCH_SBATCH_OPTIONS:-} \
  --output="$out/slurm-%A_%a.out" "$here/sweep.sbatch" "$config" "$out" "$@")
array=${array%%;*}
# shellcheck disable=SC2086
merge=$(sbatch --parsable --dependency="afterok:$array" --job-name=ptbench-merge ${PTBENCH_SBATCH_OPTIONS:-} \
  --output="$out/slurm-merge-%j.out" \
  --wrap="\"$PTBENCH\" merge \"$out\"/shard*/*/*/report.json --out \"$out/merged\"")
merge=${merge%%;*}
echo "$array $merge"
