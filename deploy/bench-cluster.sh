#!/usr/bin/env bash
# The cluster's overhead: `egdb build GAME` in one process against
# deploy/local-cluster.sh (1 coordinator + WORKERS worker processes), run
# alternately RUNS times on this machine; prints each time, the medians and
# their ratio, and checks that both built the same tables.
#
#   bash deploy/bench-cluster.sh [GAME] [RUNS] [WORKERS] [THREADS_PER_WORKER]
set -euo pipefail
cd "$(dirname "$0")/.."
. deploy/env.sh
game=${1:-morris:taiwan:5}
runs=${2:-3}
workers=${3:-2}
threads=${4:-}
[ -x "$EGDB_BIN" ] || cargo build --release --quiet
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

now() { date +%s.%N; }
since() { awk -v a="$(now)" -v b="$1" 'BEGIN { print a - b }'; }
checksums() { "$EGDB_BIN" stats --store "$1" --json | grep -o '"raw_crc32": *[0-9]*' | sort | md5sum; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

singles=() clusters=()
for run in $(seq 1 "$runs"); do
  start=$(now)
  "$EGDB_BIN" build "$game" --store "$scratch/single-$run" >/dev/null
  singles+=("$(since "$start")")
  start=$(now)
  bash deploy/local-cluster.sh "$game" "$scratch/cluster-$run" "$workers" "$threads" >/dev/null
  clusters+=("$(since "$start")")
  if [ "$(checksums "$scratch/single-$run")" != "$(checksums "$scratch/cluster-$run")" ]; then
    echo "run $run: the cluster built other tables than egdb build" >&2
    exit 1
  fi
  printf 'run %d: egdb build %.1f s, cluster %.1f s\n' "$run" "${singles[-1]}" "${clusters[-1]}"
done
single=$(printf '%s\n' "${singles[@]}" | median)
cluster=$(printf '%s\n' "${clusters[@]}" | median)
printf '%s on %s cores, %d workers x %s threads: median egdb build %.1f s, cluster %.1f s, ratio %.2f (same tables every run)\n' \
  "$game" "$(nproc)" "$workers" "${threads:-all}" "$single" "$cluster" "$(awk -v c="$cluster" -v s="$single" 'BEGIN { print c / s }')"
