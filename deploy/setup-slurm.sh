#!/usr/bin/env bash
# A single-machine Slurm for trying deploy/cluster/slurm.sbatch and for the
# Slurm test (tests/slurm.rs): munge, one slurmctld and two slurmd nodes
# (lab1, lab2) on this host, each with its own port, spool and log, in
# $EGDB_SLURM_DIR (default /var/lib/egdb-slurm). Commands reach it with
#
#   export SLURM_CONF=/var/lib/egdb-slurm/slurm.conf
#
# Idempotent: installs what is missing, (re)writes the configuration only
# when it changed, starts only the daemons that are not running and puts
# nodes that are down back into service; run it again after a node's slurmd
# was killed. Only as root (without it the Slurm test skips and says so);
# not fatal when packages cannot be installed. Ports 16817-16819 keep clear
# of a real Slurm on the same machine.
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "setup-slurm: needs root; skipped" >&2; exit 0; }
dir=${EGDB_SLURM_DIR:-/var/lib/egdb-slurm}
conf=$dir/slurm.conf

if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
  command -v apt-get >/dev/null 2>&1 || { echo "setup-slurm: no apt-get to install slurm-wlm" >&2; exit 0; }
  echo "setup-slurm: installing slurm-wlm and munge" >&2
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null; }; then
    echo "setup-slurm: could not install slurm-wlm and munge; the Slurm test will be skipped" >&2
    exit 0
  fi
fi

running() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# munge: the key comes with Debian's package; make one if it is missing.
if [ ! -s /etc/munge/munge.key ]; then
  mkdir -p /etc/munge
  dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
  chown munge:munge /etc/munge/munge.key
  chmod 0400 /etc/munge/munge.key
fi
mkdir -p /run/munge /var/log/munge /var/lib/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge
# Debian's package may have started it already.
pgrep -x munged >/dev/null || runuser -u munge -- /usr/sbin/munged

host=$(hostname -s)
mkdir -p "$dir/state" "$dir/log" "$dir/spool/lab1" "$dir/spool/lab2"
new=$(mktemp)
cat >"$new" <<EOF
# Written by deploy/setup-slurm.sh: two nodes on one host.
ClusterName=egdb-lab
SlurmctldHost=$host
SlurmctldPort=16817
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
# A dead node is noticed in seconds, its jobs requeued, and it returns to
# service by itself once its slurmd registers again; a requeued job may
# start again 10 s later (cred_expire; Slurm's default is 120 s), and the
# backfill pass that starts it runs every 5 s (default 30 s).
SlurmdTimeout=10
AuthInfo=cred_expire=10
SchedulerParameters=bf_interval=5
ReturnToService=2
JobRequeue=1
KillWait=5
MinJobAge=600
SlurmdParameters=config_overrides
NodeName=lab1 NodeHostname=$host NodeAddr=127.0.0.1 Port=16818 CPUs=2 RealMemory=4096 State=UNKNOWN
NodeName=lab2 NodeHostname=$host NodeAddr=127.0.0.1 Port=16819 CPUs=2 RealMemory=4096 State=UNKNOWN
PartitionName=lab Nodes=lab1,lab2 Default=YES MaxTime=INFINITE State=UP
EOF
if ! cmp -s "$new" "$conf"; then
  mv "$new" "$conf"
  chmod 0644 "$conf"
  # A changed configuration needs fresh daemons.
  for pid in "$dir"/slurmctld.pid "$dir"/slurmd-*.pid; do
    running "$pid" && kill "$(cat "$pid")" && sleep 1
  done
else
  rm -f "$new"
fi

export SLURM_CONF=$conf
running "$dir/slurmctld.pid" || slurmctld -f "$conf"
for node in lab1 lab2; do
  running "$dir/slurmd-$node.pid" || slurmd -f "$conf" -N "$node"
done

# Wait until both nodes answer, then resume any that a kill left down.
for _ in $(seq 60); do
  states=$(sinfo -h -N -o '%N %T' 2>/dev/null || true)
  if [ "$(grep -c . <<<"$states")" -eq 2 ] && ! grep -q 'unknown\|not_responding\|\*' <<<"$states"; then
    break
  fi
  sleep 1
done
while read -r node state; do
  case $state in
    down* | drain* | fail*) scontrol update NodeName="$node" State=RESUME ;;
  esac
done < <(sinfo -h -N -o '%N %T' 2>/dev/null || true)
sinfo -h -N -o '%N %T' 2>/dev/null | sed 's/^/setup-slurm: node /' >&2 || true
