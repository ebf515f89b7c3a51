#!/usr/bin/env bash
# A cluster of workstations made of network namespaces on this machine, for
# builds that should go through the distributed path for real: host 0 runs
# the coordinator, hosts 1..N a worker each, on a bridge of their own
# (10.78.0.0/24, no route anywhere else), with mutual TLS. The same command
# again resumes the build: the store, the certificates and each worker's
# shard cache are kept beside the store, in STORE.cluster/.
#
#   bash deploy/netns-cluster.sh GAME STORE [WORKERS] [-- COORDINATOR OPTIONS…]
#   bash deploy/netns-cluster.sh down          (removes the namespaces)
#
# Environment: THREADS (engine threads per worker, default 1), MEMORY
# (per worker, default 8GiB; MEMORY_WS2=10GiB gives ws2 its own), NICE
# (default 19), EGDB_BIN (a fixed copy of the binary for a build across
# sessions; default the build cache's),
# CACHE (default 1; 0 runs the workers without shard caches: on one
# machine they would hold much of the store twice more, and a worker
# started again fetches what it reads over the network instead),
# CACHE_LIMIT (each cache's most bytes, e.g. 8GiB; default no limit),
# NETNS (below), RESTARTS and RESTART_AFTER (a worker that dies is started
# again: below), LOCK_WAIT (seconds a run waits for an earlier one on the
# same store to end, default 300; the lock is the store's: two stores on
# the same NETNS hosts would still meet). Every STATUS_EVERY seconds (default 60) a line goes to
# STORE.cluster/status.jsonl: the time, the coordinator's status (bytes to
# and from each worker) and each process's peak memory so far;
# STORE.cluster/runs.log has each run's start and end, with the bytes the
# coordinator says crossed in it. `cluster-report.sh STORE` sums them up.
# STORE.cluster/worker-N.log has a line per task the worker finished: its
# seconds, and the seconds it spent fetching and decoding dependencies.
# Needs root.
set -euo pipefail
cd "$(dirname "$0")/.."
. deploy/env.sh
# NETNS names the hosts (NETNS-net holds the bridge, NETNS-ws0 the
# coordinator, NETNS-ws1.. the workers): clusters of other names never
# meet (a test runs one beside a build).
names=${NETNS:-egdb}
net=$names-net
bridge=egdbbr0
prefix=10.78.0

down() {
  for ns in $(ip netns list | awk -v n="$names" '$1 == n "-net" || $1 ~ "^" n "-ws[0-9]+$" {print $1}'); do
    ip netns delete "$ns"
  done
}

if [ "${1:-}" = down ]; then
  down
  exit 0
fi
game=${1:?usage: netns-cluster.sh GAME STORE [WORKERS] [-- COORDINATOR OPTIONS…]}
store=${2:?usage: netns-cluster.sh GAME STORE [WORKERS] [-- COORDINATOR OPTIONS…]}
shift 2
workers=2
if [ $# -gt 0 ] && [ "$1" != -- ]; then
  workers=$1
  shift
fi
[ "${1:-}" = -- ] && shift
[ "$(id -u)" = 0 ] || { echo "netns-cluster: network namespaces need root" >&2; exit 2; }
[ -x "$EGDB_BIN" ] || cargo build --release --bin egdb
store=$(realpath -m "$store")
home="$store.cluster"
mkdir -p "$home"
# One run at a time on a store: a run still ending stops its workers ten
# seconds after its coordinator, by the pids in wsN.pid, which a next run
# would have written over. This script holds the lock (its processes do
# not), so the next run waits for it to end.
exec 9>>"$home/run.lock"
if ! flock -n 9; then
  echo "netns-cluster: an earlier run on $store is still ending; waiting for it" >&2
  flock -w "${LOCK_WAIT:-300}" 9 ||
    { echo "netns-cluster: another run on $store holds $home/run.lock" >&2; exit 1; }
fi

# The hosts, made once (kept across runs; `down` removes them). Each end
# of a link is made in its namespace, so no name is taken on this host.
host() { echo "$names-ws$1"; }
address() { echo "$prefix.$(($1 + 1))"; }
if ! ip netns list | grep -q "^$net\b"; then
  ip netns add "$net"
  ip -n "$net" link add "$bridge" type bridge
  ip -n "$net" link set "$bridge" up
  ip -n "$net" link set lo up
fi
for i in $(seq 0 "$workers"); do
  ns=$(host "$i")
  ip netns list | grep -q "^$ns\b" && continue
  ip netns add "$ns"
  ip link add veth netns "$ns" type veth peer name "ws$i" netns "$net"
  ip -n "$net" link set "ws$i" master "$bridge" up
  ip -n "$ns" addr add "$(address "$i")/24" dev veth
  ip -n "$ns" link set veth up
  ip -n "$ns" link set lo up
done

# One certificate per host, signed by the cluster's own CA (kept).
tls="$home/tls"
hosts=$(for i in $(seq 0 "$workers"); do address "$i"; done | paste -sd,)
[ -s "$tls/$(address "$workers").pem" ] || "$EGDB_BIN" tls init "$tls" --hosts "$hosts" >/dev/null
tls_of() { echo --tls-cert "$tls/$1.pem" --tls-key "$tls/$1.key" --tls-ca "$tls/ca.pem"; }

coordinator=$(address 0)
url="https://$coordinator:7070"
logged=0 said=0
if [ -f "$home/coordinator.log" ]; then logged=$(wc -l <"$home/coordinator.log"); fi
if [ -f "$home/coordinator.out" ]; then said=$(wc -l <"$home/coordinator.out"); fi
echo "$(date -u +%FT%TZ) start: $game, $workers workers, $(readlink -f "$EGDB_BIN")" >>"$home/runs.log"
# shellcheck disable=SC2046
ip netns exec "$(host 0)" nice -n "${NICE:-19}" "$EGDB_BIN" -v coordinator "$game" --store "$store" \
  --listen "$coordinator:7070" $(tls_of "$coordinator") "$@" \
  >>"$home/coordinator.out" 2>>"$home/coordinator.log" 9>&- &
coordinator_pid=$!
# Workers start once the coordinator listens: before that it may spend
# minutes taking slices from another store (--reuse), longer than a
# worker waits for its first connection.
until tail -n +"$((said + 1))" "$home/coordinator.out" 2>/dev/null | grep -q '^listening on '; do
  kill -0 "$coordinator_pid" 2>/dev/null || break
  sleep 1
done
# Each worker runs under a loop of its own: one that exits while the
# coordinator still runs (killed, out of memory) is started again after
# RESTART_AFTER seconds (default 5), at most RESTARTS times (default 20), and
# runs.log says so. With its cache (CACHE=1) it takes its name and the
# slice it held back at once, having registered before; else its lease
# expires and the slice goes to whoever asks next: only the slice in flight
# is lost. An exit 0 is the coordinator's stop. Each worker's pid is in STORE.cluster/wsN.pid.
run_worker() {
  local i=$1 me cache=() pid code restarts=0 memory
  me=$(address "$i")
  memory=MEMORY_WS$i
  memory=${!memory:-${MEMORY:-8GiB}}
  [ "${CACHE:-1}" = 0 ] || cache=(--cache "$home/cache-ws$i")
  [ "${CACHE:-1}" = 0 ] || [ -z "${CACHE_LIMIT:-}" ] || cache+=(--cache-limit "$CACHE_LIMIT")
  while :; do
    # shellcheck disable=SC2046
    ip netns exec "$(host "$i")" nice -n "${NICE:-19}" "$EGDB_BIN" -v worker --coordinator "$url" \
      $(tls_of "$me") --name "ws$i" --game "$game" --threads "${THREADS:-1}" \
      --memory "$memory" "${cache[@]}" \
      >>"$home/worker-$i.out" 2>>"$home/worker-$i.log" 9>&- &
    pid=$!
    echo "$pid" >"$home/ws$i.pid"
    code=0
    wait "$pid" || code=$?
    [ "$code" = 0 ] && return 0
    kill -0 "$coordinator_pid" 2>/dev/null || return 0
    if [ "$restarts" -ge "${RESTARTS:-20}" ]; then
      echo "$(date -u +%FT%TZ) ws$i: worker exit $code; not started again (RESTARTS=${RESTARTS:-20} used)" >>"$home/runs.log"
      return 0
    fi
    restarts=$((restarts + 1))
    echo "$(date -u +%FT%TZ) ws$i: worker exit $code; started again" >>"$home/runs.log"
    sleep "${RESTART_AFTER:-5}" 9>&-
  done
}
rm -f "$home"/ws*.pid
loops=()
for i in $(seq 1 "$workers"); do
  run_worker "$i" &
  loops+=($!)
done
# The workers' own pids, as they are now.
worker_pids() { cat "$home"/ws*.pid 2>/dev/null || true; }
stop_workers() {
  kill "${loops[@]}" 2>/dev/null || true
  # shellcheck disable=SC2046
  kill $(worker_pids) 2>/dev/null || true
}
trap 'stop_workers; kill "$coordinator_pid" 2>/dev/null' INT TERM
# Peak resident memory (VmHWM) of each process of this run, in KiB
# (`ip netns exec` and `nice` exec the process itself: the pids are egdb's).
peaks() {
  local name_pid name pid kib line=""
  for name_pid in "coordinator=$coordinator_pid" $(for i in $(seq 1 "$workers"); do echo "ws$i=$(cat "$home/ws$i.pid" 2>/dev/null)"; done); do
    name=${name_pid%%=*} pid=${name_pid#*=}
    kib=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    if [ -n "$kib" ]; then line="$line${line:+, }\"$name\": $kib"; fi
  done
  echo "{$line}"
}
# The status, from host 1 as the workers see the coordinator, and the
# processes' peak memory: one line a sample.
(
  exec 9>&-
  while kill -0 "$coordinator_pid" 2>/dev/null; do
    sleep "${STATUS_EVERY:-60}"
    # shellcheck disable=SC2046
    now=$(ip netns exec "$(host 1)" "$EGDB_BIN" status --coordinator "$url" --json \
      $(tls_of "$(address 1)") 2>/dev/null | tr -d '\n') || true
    echo "{\"time\": \"$(date -u +%FT%TZ)\", \"status\": ${now:-null}, \"peak_rss_kib\": $(peaks)}" \
      >>"$home/status.jsonl"
  done
) &
sampler=$!
status=0
wait "$coordinator_pid" || status=$?
# Workers told to stop have stopped; one that never reached the coordinator
# (a store already complete) stops on the signal, without waiting it out.
sleep 10
stop_workers
wait "${loops[@]}" 2>/dev/null || true
# Its last sample must not look at the next run.
kill "$sampler" 2>/dev/null || true
wait "$sampler" 2>/dev/null || true
# The coordinator's own count of this run's bytes over the network.
wire=$(tail -n +"$((logged + 1))" "$home/coordinator.log" | grep '^this run: ' | tail -n 1 || true)
echo "$(date -u +%FT%TZ) end: coordinator exit $status${wire:+; $wire}" >>"$home/runs.log"
exit "$status"
