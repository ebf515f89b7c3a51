#!/usr/bin/env bash
# Starts a build over ssh: the coordinator on the first host of HOSTS, a
# worker on every host (the first one too). Each host needs egdb on its PATH
# (or at $EGDB) and the token file at the same path. Logs go to WORKDIR on
# each host (default: the ssh user's home), workers keep their shard cache
# in WORKDIR/.cache/egdb-shards-HOST; `egdb status` shows the build.
#
#   bash deploy/cluster/launch.sh HOSTS GAME STORE TOKEN_FILE [PORT]
#
# HOSTS: one host per line (blank lines and # comments ignored), named as
# their certificates name them.
# TLS_DIR: a directory made by `egdb tls init TLS_DIR --hosts ...`, at the
# same path on every host: the cluster then speaks mutual TLS (https://).
# SSH: the ssh command (default `ssh`), e.g. `ssh -i key -o BatchMode=yes`.
set -euo pipefail
hosts_file=${1:?usage: launch.sh HOSTS GAME STORE TOKEN_FILE [PORT]}
game=${2:?game}
store=${3:?store}
token=${4:?token file}
port=${5:-7070}
egdb=${EGDB:-egdb}
workdir=${WORKDIR:-\~}
read -r -a ssh <<<"${SSH:-ssh}"
mapfile -t hosts < <(grep -v '^\s*\(#\|$\)' "$hosts_file")
[ "${#hosts[@]}" -gt 0 ] || { echo "no hosts in $hosts_file" >&2; exit 2; }
coordinator=${hosts[0]}
scheme=http
tls() { :; }
if [ -n "${TLS_DIR:-}" ]; then
  scheme=https
  tls() { echo "--tls-cert '$TLS_DIR/$1.pem' --tls-key '$TLS_DIR/$1.key' --tls-ca '$TLS_DIR/ca.pem'"; }
fi
url="$scheme://$coordinator:$port"
echo "coordinator on $url"
"${ssh[@]}" "$coordinator" "cd $workdir || exit 1; nohup '$egdb' coordinator '$game' --store '$store' --listen 0.0.0.0:$port \
  --token-file '$token' $(tls "$coordinator") >egdb-coordinator.log 2>&1 </dev/null &"
sleep 2
for host in "${hosts[@]}"; do
  echo "worker on $host"
  "${ssh[@]}" "$host" "cd $workdir || exit 1; nohup '$egdb' worker --coordinator $url --token-file '$token' $(tls "$host") \
    --cache .cache/egdb-shards-$host >egdb-worker-$host.log 2>&1 </dev/null &"
done
echo "started; follow it with: egdb status --coordinator $url --token-file '$token' $(tls HOST)"
