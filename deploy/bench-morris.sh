#!/usr/bin/env bash
# The Morris engines of this revision against those of an older one, side
# by side: each run solves a whole game in RAM (`examples/morris_time.rs`,
# no store), old and new alternately, RUNS times each; prints each run,
# the medians per phase (placement, movement) with their seconds per
# entry and ratios, and checks that both give the same table checksum for
# every slice (and, with STATS_JSON naming `egdb stats --json` of a store,
# the store's checksums too).
#
# Usage: bash deploy/bench-morris.sh VARIANT PIECES [RUNS]   e.g. taiwan 6 3
#   OLD_REV=495fcdb      the revision to measure against (default: the last
#                        one before placement walked the engine layout;
#                        fe5d7b9 is the one before the engine work of
#                        issue 12). Its tree is built once, in its own
#                        target directory (RocksDB compiles again there,
#                        ~40 minutes), and kept.
#   OLD=path/to/morris_time   use that binary instead of building one
set -euo pipefail
cd "$(dirname "$0")/.."
variant="$1"; pieces="$2"; runs="${3:-3}"
rev="${OLD_REV:-495fcdb}"
# --workspace: the features of the whole workspace, so that RocksDB is the
# one `egdb` links (built once per target directory).
bash deploy/setup.sh
. deploy/env.sh
cargo build --release --workspace --example morris_time
out="$(mktemp -d)"
# A copy: a later build in the same target directory must not change it mid-run.
cp "$CARGO_TARGET_DIR/release/examples/morris_time" "$out/new-bin"
new="$out/new-bin"
if [ -z "${OLD:-}" ]; then
  tree="$HOME/.cache/egdb/src-$rev"
  [ -d "$tree" ] || git worktree add --detach "$tree" "$rev"
  (cd "$tree" && CARGO_TARGET_DIR="$HOME/.cache/egdb/target-$rev" \
    cargo build --release --workspace --example morris_time)
  OLD="$HOME/.cache/egdb/target-$rev/release/examples/morris_time"
fi
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); old: $OLD"
# Seconds and entries of one phase (place or move) in a run's output.
phase() { awk -F'\t' -v p="$2" '$1 ~ "^"p"-" { e += $2; s += $3 } END { printf "%.2f %d\n", s, e }' "$1"; }
for run in $(seq "$runs"); do
  for side in old new; do
    bin=$OLD; [ $side = new ] && bin=$new
    "$bin" "$variant" "$pieces" > "$out/$side-$run"
  done
  echo "run $run: placement old $(phase "$out/old-$run" place | cut -d' ' -f1) s, new $(phase "$out/new-$run" place | cut -d' ' -f1) s;" \
    "movement old $(phase "$out/old-$run" move | cut -d' ' -f1) s, new $(phase "$out/new-$run" move | cut -d' ' -f1) s"
  if ! diff <(cut -s -f1,5 "$out/old-$run") <(cut -s -f1,5 "$out/new-$run") >/dev/null; then
    echo "run $run: the slice checksums differ"; exit 1
  fi
done
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
report() {
  local p=$1 name=$2 om nm entries
  om=$(for f in "$out"/old-[0-9]*; do phase "$f" "$p" | cut -d' ' -f1; done | median)
  nm=$(for f in "$out"/new-[0-9]*; do phase "$f" "$p" | cut -d' ' -f1; done | median)
  entries=$(phase "$out/new-1" "$p" | cut -d' ' -f2)
  awk -v n="$name" -v a="$om" -v b="$nm" -v e="$entries" 'BEGIN {
    printf "%s: %d entries; old median %.2f s (%.1f ns/entry), new median %.2f s (%.1f ns/entry), %.2fx\n",
      n, e, a, a * 1e9 / e, b, b * 1e9 / e, a / b }'
}
echo "$variant $pieces, $runs runs each, every slice checksum equal:"
report place placement
report move movement
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
