#!/usr/bin/env bash
# Starts a build over ssh: the coordinator on the first host of HOSTS, a
# worker on every host (the first one too). Each host needs egdb on its PATH
# and the token file at the same path. Workers keep their shard cache in
# ~/.cache/egdb-shards on their host; `egdb status` shows the build.
#
#   bash deploy/cluster/launch.sh HOSTS GAME STORE TOKEN_FILE [PORT]
#
# HOSTS: one host per line (blank lines and # comments ignored).
set -euo pipefail
hosts_file=${1:?usage: launch.sh HOSTS GAME STORE TOKEN_FILE [PORT]}
game=${2:?game}
store=${3:?store}
token=${4:?token file}
port=${5:-7070}
mapfile -t hosts < <(grep -v '^\s*\(#\|$\)' "$hosts_file")
[ "${#hosts[@]}" -gt 0 ] || { echo "no hosts in $hosts_file" >&2; exit 2; }
coordinator=${hosts[0]}
echo "coordinator on $coordinator:$port"
ssh "$coordinator" "nohup egdb coordinator '$game' --store '$store' --listen 0.0.0.0:$port --token-file '$token' >egdb-coordinator.log 2>&1 &"
sleep 2
for host in "${hosts[@]}"; do
  echo "worker on $host"
  ssh "$host" "nohup egdb worker --coordinator http://$coordinator:$port --token-file '$token' --cache ~/.cache/egdb-shards >egdb-worker.log 2>&1 &"
done
echo "started; follow it with: egdb status --coordinator http://$coordinator:$port --token-file '$token'"
