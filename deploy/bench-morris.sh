#!/usr/bin/env bash
# The Morris engines of this revision against those of revision fe5d7b9
# (before the engine work of issue 12), side by side: each run solves a
# whole game in RAM (`examples/morris_time.rs`, no store), old and new
# alternately, RUNS times each; prints each run, the medians and the ratio,
# and checks that both give the same start value and (new) the checksums
# of a store when STATS_JSON names `egdb stats --json` of one.
#
# Usage: bash deploy/bench-morris.sh GAME RUNS     e.g. taiwan 5 3
#   OLD=path/to/old/morris_time   use that binary instead of building it
#   (building revision fe5d7b9 compiles RocksDB once more, ~40 minutes,
#   in $HOME/.cache/egdb/target-fe5d7b9).
set -euo pipefail
cd "$(dirname "$0")/.."
variant="$1"; pieces="$2"; runs="${3:-3}"
bash deploy/setup.sh
. deploy/env.sh
cargo build --release -p egdb-worker --example morris_time
new="$CARGO_TARGET_DIR/release/examples/morris_time"
if [ -z "${OLD:-}" ]; then
  tree="$HOME/.cache/egdb/src-fe5d7b9"
  [ -d "$tree" ] || git worktree add --detach "$tree" fe5d7b9
  (cd "$tree" && CARGO_TARGET_DIR="$HOME/.cache/egdb/target-fe5d7b9" \
    cargo build --release -p egdb-worker --example morris_time)
  OLD="$HOME/.cache/egdb/target-fe5d7b9/release/examples/morris_time"
fi
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
seconds() { tail -1 "$1" | sed -E 's/.* entries in ([0-9.]+) s.*/\1/'; }
start() { tail -1 "$1" | sed -E 's/.*; start (.*)$/\1/'; }
out="$(mktemp -d)"
for run in $(seq "$runs"); do
  "$OLD" "$variant" "$pieces" > "$out/old-$run"
  "$new" "$variant" "$pieces" > "$out/new-$run"
  echo "run $run: old $(seconds "$out/old-$run") s, new $(seconds "$out/new-$run") s"
  [ "$(start "$out/old-$run")" = "$(start "$out/new-$run")" ] || { echo "start values differ"; exit 1; }
done
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
old_m=$(for f in "$out"/old-*; do seconds "$f"; done | median)
new_m=$(for f in "$out"/new-*; do seconds "$f"; done | median)
echo "$variant $pieces: old median $old_m s, new median $new_m s, ratio $(awk -v a="$old_m" -v b="$new_m" 'BEGIN { printf "%.2f", a / b }')x; start $(start "$out/new-1")"
if [ -n "${STATS_JSON:-}" ]; then
  python3 - "$STATS_JSON" "$out/new-1" <<'PY'
import json, sys
stats = {d['slice']: d['raw_crc32'] for d in json.load(open(sys.argv[1]))}
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[2]) if l.count('\t') >= 4]
bad = [r[0] for r in rows if int(r[4], 16) != stats.get(r[0])]
print(f"checksums: {len(rows)} slices, {len(bad)} differ from the store's" + (f": {bad[:5]}" if bad else ""))
sys.exit(1 if bad or len(rows) != len(stats) else 0)
PY
fi
rm -rf "$out"
