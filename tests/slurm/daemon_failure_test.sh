#!/usr/bin/env bash
# scripts/slurm/local-cluster.sh when slurmd cannot start (on a Debian 12 root without
# cgroups mounted slurmd exits with "No filesystem mounted on /sys/fs/cgroup" in its log, and
# the script ended through set -e without a word). Fake daemons and Slurm commands first on the
# PATH stand in for Debian's: munged and slurmctld start, slurmd logs that line and exits 1, or
# forks and dies. The script must name slurmd, print the end of its log and leave nothing
# running; the job-array test must skip with that text as its reason. Needs neither Slurm nor
# root.
#   tests/slurm/daemon_failure_test.sh SOURCE_DIR
set -euo pipefail
source=$(realpath "${1:?usage: daemon_failure_test.sh SOURCE_DIR}")
work=$(mktemp -d /tmp/ptbench-slurm-failure.XXXXXX)
trap 'for p in "$work"/*.sleeper; do kill "$(cat "$p")" 2>/dev/null || true; done; rm -rf "$work"' EXIT
fakes=$work/bin
mkdir -p "$fakes"
# A daemon that starts: a sleeping process of its own, its pid in the pid file the config names.
daemon() {
  local name=$1 pidkey=$2
  cat > "$fakes/$name" <<SH
#!/usr/bin/env bash
pidfile=\$(sed -n 's/^$pidkey=//p' "\${2:-/dev/null}" 2>/dev/null)
for arg in "\$@"; do case \$arg in --pid-file=*) pidfile=\${arg#--pid-file=} ;; esac; done
sleep 300 & echo \$! > "\$pidfile"; echo \$! > "$work/$name.sleeper"
SH
}
daemon munged none
daemon slurmctld SlurmctldPidFile
# slurmd as Debian 12's on a root without cgroups, or (FAKE_SLURMD=dies) one that forks and dies.
cat > "$fakes/slurmd" <<'SH'
#!/usr/bin/env bash
log=$(sed -n 's/^SlurmdLogFile=//p' "$2")
pidfile=$(sed -n 's/^SlurmdPidFile=//p' "$2")
if [ "${FAKE_SLURMD:-}" = dies ]; then
  echo "error: the node's state is gone" >> "$log"
  sh -c 'exit 0' & echo $! > "$pidfile"
  exit 0
fi
echo "[2026-11-26T00:00:00.000] error: cgroup_dbus_attach_to_scope: cannot connect to dbus system daemon" >> "$log"
echo "[2026-11-26T00:00:00.001] error: No filesystem mounted on /sys/fs/cgroup" >> "$log"
echo "[2026-11-26T00:00:00.002] fatal: Unable to initialize cgroup plugin" >> "$log"
exit 1
SH
for tool in sinfo scontrol sbatch squeue; do printf '#!/bin/sh\nexit 1\n' > "$fakes/$tool"; done
chmod +x "$fakes"/*
export PATH=$fakes:$PATH

fail() { echo "FAIL: $*"; exit 1; }
status=0
"$source/scripts/slurm/local-cluster.sh" start "$work/cluster" > "$work/out" 2> "$work/err" || status=$?
echo "local-cluster.sh start: exit $status"; cat "$work/err"
[ "$status" = 1 ] || fail "local-cluster.sh start exited $status, not 1"
grep -q "^local-cluster: slurmd did not start (exit 1); the end of $work/cluster/slurmd.log:" "$work/err" ||
  fail "no line naming slurmd and its log"
grep -q "No filesystem mounted on /sys/fs/cgroup" "$work/err" || fail "the end of slurmd.log is not printed"
[ ! -s "$work/out" ] || fail "printed a SLURM_CONF: $(cat "$work/out")"
for name in munged slurmctld; do
  pid=$(cat "$work/$name.sleeper")
  # A zombie has stopped; this machine's init may not have reaped it yet.
  [ ! -e "/proc/$pid" ] || grep -qs '^[0-9]* (.*) Z ' "/proc/$pid/stat" || fail "$name still runs after slurmd failed"
done

status=0
FAKE_SLURMD=dies "$source/scripts/slurm/local-cluster.sh" start "$work/dies" > /dev/null 2> "$work/err" || status=$?
echo "local-cluster.sh start, slurmd dying after it forked: exit $status"; cat "$work/err"
[ "$status" = 1 ] || fail "exited $status, not 1"
grep -q "^local-cluster: slurmd started, then stopped; the end of $work/dies/slurmd.log:" "$work/err" ||
  fail "no line naming slurmd"
grep -q "the node's state is gone" "$work/err" || fail "the end of slurmd.log is not printed"

if [ "$(id -u)" = 0 ]; then
  status=0
  "$source/tests/slurm/job_array_test.sh" /bin/true "$source" > "$work/test" 2>&1 || status=$?
  echo "job_array_test.sh: exit $status"; cat "$work/test"
  [ "$status" = 77 ] || fail "the job-array test exited $status, not 77 (skipped)"
  grep -q "^skipped: this machine cannot run slurmd" "$work/test" || fail "the skip gives no reason"
  grep -q "No filesystem mounted on /sys/fs/cgroup" "$work/test" || fail "the skip does not quote slurmd.log"
else
  echo "(not root: the job-array test would skip before starting a cluster; not run)"
fi
echo "ok"
