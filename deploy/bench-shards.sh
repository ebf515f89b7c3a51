#!/usr/bin/env bash
# Bytes of shards a cluster sends: a coordinator and two workers of one
# thread on loopback, each worker's shard cache limited to PERCENT % of the
# store (3 GiB was 7 % of Taiwan P = 12's 41 GB), RUNS times; prints each
# run's bytes sent against the store's stored bytes, and the median. The
# store's size comes from a one-process build of the same game first, whose
# checksums every cluster run must equal.
#
#   bash deploy/bench-shards.sh [GAME] [RUNS] [PERCENT] [-- COORDINATOR OPTIONS…]
#
# EGDB_BIN: the binary to measure (default the build cache's).
set -euo pipefail
cd "$(dirname "$0")/.."
. deploy/env.sh
game=${1:-morris:taiwan:6}
runs=${2:-3}
percent=${3:-7}
shift $(($# < 3 ? $# : 3))
[ "${1:-}" = -- ] && shift
[ -x "$EGDB_BIN" ] || cargo build --release --quiet --bin egdb
scratch=$(mktemp -d)
# Under set -e a kill with no jobs left would end the trap before the rm.
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$scratch"' EXIT

checksums() { "$EGDB_BIN" stats --store "$1" --json | grep -o '"raw_crc32": *[0-9]*' | sort | md5sum; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

"$EGDB_BIN" build "$game" --store "$scratch/single" >/dev/null 2>"$scratch/single.log"
stored=$("$EGDB_BIN" stats --store "$scratch/single" --json | grep -o '"stored_bytes": *[0-9]*' | awk -F: '{ s += $2 } END { print s }')
limit=$((stored * percent / 100))
echo "$game: store $stored bytes; each worker's cache limited to $limit ($percent %)"

ratios=()
for run in $(seq 1 "$runs"); do
  out="$scratch/run-$run"
  mkdir -p "$out"
  head -c 24 /dev/urandom | base64 >"$out/token"
  coproc COORD { "$EGDB_BIN" coordinator "$game" --store "$out/store" --listen 127.0.0.1:0 \
    --token-file "$out/token" "$@" 2>"$out/coordinator.log"; }
  coordinator=$COORD_PID
  read -r line <&"${COORD[0]}"
  workers=()
  for i in 1 2; do
    "$EGDB_BIN" worker --coordinator "http://${line#listening on }" --token-file "$out/token" \
      --threads 1 --name "w$i" --cache "$out/cache-$i" --cache-limit "$limit" \
      >/dev/null 2>"$out/worker-$i.log" &
    workers+=($!)
  done
  wait "$coordinator"
  wait "${workers[@]}" || true
  sent=$(grep -o 'this run: [0-9]* bytes of shards sent' "$out/coordinator.log" | tail -n 1 | grep -o '[0-9]*' | head -n 1)
  if [ "$(checksums "$scratch/single")" != "$(checksums "$out/store")" ]; then
    echo "run $run: the cluster built other tables than egdb build" >&2
    exit 1
  fi
  ratios+=("$(awk -v s="$sent" -v t="$stored" 'BEGIN { printf "%.3f", s / t }')")
  echo "run $run: $sent bytes sent, ${ratios[-1]} x the store"
done
echo "median: $(printf '%s\n' "${ratios[@]}" | median) x the store ($runs runs, same tables every run)"
