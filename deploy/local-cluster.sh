#!/usr/bin/env bash
# A cluster of separate processes on this machine, for trying things out:
# one coordinator on a loopback port and N workers.
#
#   bash deploy/local-cluster.sh GAME STORE [WORKERS] [THREADS_PER_WORKER]
#
# Without THREADS_PER_WORKER each worker uses every core: a worker whose
# peers wait for its slice then has the whole machine.
# Logs go to STORE.logs/. The script waits for the build and returns the
# coordinator's exit status.
set -euo pipefail
cd "$(dirname "$0")/.."
. deploy/env.sh
game=${1:?usage: local-cluster.sh GAME STORE [WORKERS] [THREADS]}
store=${2:?usage: local-cluster.sh GAME STORE [WORKERS] [THREADS]}
workers=${3:-2}
threads=${4:-}
[ -x "$EGDB_BIN" ] || cargo build --release --quiet
logs="$store.logs"
mkdir -p "$logs"
token="$logs/token"
[ -s "$token" ] || head -c 24 /dev/urandom | base64 > "$token"

coproc COORD { "$EGDB_BIN" coordinator "$game" --store "$store" \
  --listen 127.0.0.1:0 --token-file "$token" 2>"$logs/coordinator.log"; }
coordinator_pid=$COORD_PID
read -r line <&"${COORD[0]}"
address=${line#listening on }
echo "coordinator $coordinator_pid on $address"
pids=()
for i in $(seq 1 "$workers"); do
  "$EGDB_BIN" worker --coordinator "http://$address" --token-file "$token" \
    ${threads:+--threads "$threads"} --name "local-$i" \
    >"$logs/worker-$i.out" 2>"$logs/worker-$i.log" &
  pids+=($!)
done
trap 'kill "${pids[@]}" "$coordinator_pid" 2>/dev/null' INT TERM
status=0
wait "$coordinator_pid" || status=$?
wait "${pids[@]}" || true
echo "coordinator exited with $status; logs in $logs"
exit "$status"
