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
case $action in
start)
  mkdir -p "$dir"/state "$dir"/spool "$dir"/munge
  dir=$(realpath "$dir")
  chmod 700 "$dir"/munge
  host=$(hostname -s)
  head -c 1024 /dev/urandom > "$dir/munge/munge.key"
  chmod 400 "$dir/munge/munge.key"
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
  slurmctld -f "$SLURM_CONF"
  slurmd -f "$SLURM_CONF"
  for _ in $(seq 1 100); do
    if sinfo -h -o %t 2>/dev/null | grep -q idle; then
      echo "$SLURM_CONF"
      exit 0
    fi
    sleep 0.2
  done
  echo "local-cluster: the node did not come up; see $dir/slurmctld.log and $dir/slurmd.log" >&2
  exit 1
  ;;
stop)
  export SLURM_CONF="$dir/slurm.conf"
  scontrol shutdown >/dev/null 2>&1 || true
  for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  ;;
*)
  echo "usage: local-cluster.sh start|stop DIR" >&2
  exit 2
  ;;
esac
