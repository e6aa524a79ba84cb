#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for tests: munged, slurmctld and slurmd from
# Debian's packages, with their configuration, keys, state and logs in one folder and ports of
# their own, so that nothing of the system's is touched. Needs root (slurmd runs jobs as their
# user). No cgroups: process tracking by /proc.
#   scripts/slurm/local-cluster.sh start DIR   (prints the SLURM_CONF to export)
#   scripts/slurm/local-cluster.sh stop DIR    (stops everything it started, removes nothing)
set -euo pipefail
action=${1:?usage: local-cluster.sh start|stop DIR}
dir=${2:?usage: local-cluster.sh start|stop DIR}

# Whether process PID runs: a zombie has stopped, though kill -0 finds it until it is reaped (an
# init that reaps late, as in containers, would keep every stop waiting for it).
running() {
  [ -e "/proc/$1" ] && ! grep -qs '^[0-9]* (.*) Z ' "/proc/$1/stat"
}

# Stops every daemon whose pid file DIR holds: politely, then by force. Only slurmctld and slurmd
# hear `scontrol shutdown`, and only when it reached slurmctld: the others are not waited for.
stop_all() {
  export SLURM_CONF="$dir/slurm.conf"
  local asked=false
  scontrol shutdown >/dev/null 2>&1 && asked=true
  for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    if $asked && [ "$pidfile" != "$dir/munge/munged.pid" ]; then
      for _ in $(seq 1 50); do running "$pid" || break; sleep 0.1; done
    fi
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do running "$pid" || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
}

# A daemon that did not start: which, why (the end of its log), and nothing left running.
# The first line is what tests/slurm/job_array_test.sh reports.
daemon_failed() {
  local name=$1 log=$2 why=$3
  echo "local-cluster: $name $why; the end of $log:" >&2
  if [ -s "$log" ]; then tail -n 20 "$log" | sed 's/^/  /' >&2; else echo "  (empty or missing)" >&2; fi
  stop_all
  exit 1
}

# Runs daemon NAME (its arguments after LOG), which forks into the background: a non-zero exit
# (slurmd on a machine without cgroups: "No filesystem mounted on /sys/fs/cgroup") is reported
# with its log instead of ending the script through set -e without a word.
start_daemon() {
  local name=$1 log=$2 status=0
  shift 2
  "$@" || status=$?
  [ "$status" = 0 ] || daemon_failed "$name" "$log" "did not start (exit $status)"
}

# A daemon whose pid file names a process that is gone died after it forked.
check_running() {
  local name=$1 pidfile=$2 log=$3
  if [ -f "$pidfile" ] && ! running "$(cat "$pidfile")"; then
    daemon_failed "$name" "$log" "started, then stopped"
  fi
}

case $action in
start)
  mkdir -p "$dir"/state "$dir"/spool "$dir"/munge
  dir=$(realpath "$dir")
  chmod 700 "$dir"/munge
  host=$(hostname -s)
  head -c 1024 /dev/urandom > "$dir/munge/munge.key"
  chmod 400 "$dir/munge/munge.key"
  start_daemon munged "$dir/munge/munged.log" \
    munged --force --socket="$dir/munge/socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/seed"
  cpus=$(nproc)
  memory=$(awk '/MemTotal/ { print int($2 / 1024 * 0.8) }' /proc/meminfo)
  cat > "$dir/slurm.conf" <<CONF
ClusterName=ptbench-test
SlurmctldHost=$host
SlurmctldPort=16917
SlurmdPort=16918
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
NodeName=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
CONF
  export SLURM_CONF="$dir/slurm.conf"
  start_daemon slurmctld "$dir/slurmctld.log" slurmctld -f "$SLURM_CONF"
  start_daemon slurmd "$dir/slurmd.log" slurmd -f "$SLURM_CONF"
  for _ in $(seq 1 100); do
    if sinfo -h -o %t 2>/dev/null | grep -q idle; then
      echo "$SLURM_CONF"
      exit 0
    fi
    check_running slurmctld "$dir/slurmctld.pid" "$dir/slurmctld.log"
    check_running slurmd "$dir/slurmd.pid" "$dir/slurmd.log"
    sleep 0.2
  done
  for name in slurmctld slurmd; do
    running "$(cat "$dir/$name.pid" 2>/dev/null)" ||
      daemon_failed "$name" "$dir/$name.log" "is not running and the node did not come up in 20 s"
  done
  daemon_failed slurmd "$dir/slurmd.log" "runs, but the node did not come up idle in 20 s (sinfo: $(sinfo -h -o %t 2>&1 | head -n 1))"
  ;;
stop)
  stop_all
  ;;
*)
  echo "usage: local-cluster.sh start|stop DIR" >&2
  exit 2
  ;;
esac
