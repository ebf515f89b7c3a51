#!/usr/bin/env bash
# Taiwan Morris P = 12 (issue 32), built across sessions on the namespace
# cluster (netns-cluster.sh): a coordinator and two workers on hosts of
# their own, with mutual TLS, every slice checked against its moves as it
# is stored. The same command resumes the build.
#
#   bash deploy/taiwan-12.sh [DIR]     (default $HOME/p12; store DIR/tw12.egdb)
#
# Run it in the background, e.g.
#   setsid nohup bash deploy/taiwan-12.sh >>~/p12/run.out 2>&1 </dev/null &
# At its first start on a machine it pins the binary of the build cache in
# DIR/bin/, and it runs copies of the cluster scripts taken in DIR/deploy/
# at each start: the checkout and its build cache may change under a build
# that runs for days. When the build is over, taiwan-12-publish.sh makes
# its results in DIR/results. Settings (THREADS, MEMORY, MEMORY_WS1, CACHE_LIMIT,
# NICE) are netns-cluster.sh's, with defaults for two cores and 24 GiB: two
# workers of two engine threads beside a coordinator of about 2.5 GiB, ws1
# with 9.75 GiB for slices, as `move-09-08-p0/p1` need 9.68 GiB (`egdb plan
# morris:taiwan:12`), ws2 with 8.5 GiB: each process runs about 0.9 GiB
# over its budget, and both together must leave the machine some room.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(realpath -m "${1:-$HOME/p12}")
mkdir -p "$dir/bin" "$dir/deploy"
. deploy/env.sh
if [ ! -x "$dir/bin/egdb" ]; then
  # The checkout's own binary, whatever the cache held before.
  cargo build --release --bin egdb
  pinned="egdb-$(git rev-parse --short HEAD 2>/dev/null || echo local)"
  cp "$EGDB_BIN" "$dir/bin/$pinned"
  ln -sfn "$pinned" "$dir/bin/egdb"
fi
# Renamed into place: a copy a running build reads is never rewritten.
for script in netns-cluster.sh env.sh taiwan-12-publish.sh; do
  cp "deploy/$script" "$dir/deploy/$script.new"
  mv "$dir/deploy/$script.new" "$dir/deploy/$script"
done
echo "$(date -u +%FT%TZ) taiwan-12.sh: start, binary $(readlink -f "$dir/bin/egdb")" >>"$dir/pauses.log"
export EGDB_BIN="$dir/bin/egdb"
export THREADS="${THREADS:-2}" MEMORY="${MEMORY:-8.5GiB}" MEMORY_WS1="${MEMORY_WS1:-9.75GiB}"
# Shard caches of 3 GiB each (1 GiB until 2026-11-28: the coordinator then
# sent nine bytes of shards for each it got back). The disk holds them:
# the finished store is about 33 GiB, 6 GiB of caches beside it.
export CACHE_LIMIT="${CACHE_LIMIT:-3GiB}"
export NICE="${NICE:-19}"
# Leases of 120 s: the workers run at nice 19, and behind a foreground
# compile a heartbeat once came later than the default 30 s: a worker's
# move-06-06 was refused, and solved again (333 s). A worker that dies is started
# again at once, and its new process frees the slice it held.
# Once the build is over, its results are made at once (into DIR/results):
# a machine that is replaced loses the store. One string for bash -c, read
# whole: this file may change under a run of days.
exec bash -c 'bash "$1/deploy/netns-cluster.sh" morris:taiwan:12 "$1/tw12.egdb" 2 -- \
  --verify-as-built --lease-seconds 120 && bash "$1/deploy/taiwan-12-publish.sh" "$1" "$2"' \
  taiwan-12 "$dir" "$PWD"
