#!/usr/bin/env bash
# What follows a long build (deploy/long-build.sh) at once, while the
# machine that holds the store still runs: its results page, checksum list
# and stats (deploy/results.sh, the build's checks standing for a verify),
# the 4-ply opening book, and its movement slices set beside each published
# checksum list of the same rules with fewer pieces (docs/results/FAMILY-P.crc).
# Everything goes to DIR/results, for a session to read and commit;
# nothing here writes the checkout.
#
#   bash deploy/long-build-publish.sh GAME DIR CHECKOUT LOG STORE
#
# LOG is the build's output (`egdb build`'s or the coordinator's). It runs
# only when LOG's last `built` line says every slice was verified as it
# was stored; else it says why and exits 1.
set -euo pipefail
game=${1:?usage: long-build-publish.sh GAME DIR CHECKOUT LOG STORE}
dir=$(realpath -m "${2:?}")
checkout=$(realpath -m "${3:?}")
log=${4:?}
store=$(realpath -m "${5:?}")
name=$(echo "${game#morris:}" | tr ':/' '--')
results="$dir/results"
export EGDB_BIN="$dir/bin/egdb"
say() { echo "$(date -u +%FT%TZ) long-build-publish: $*"; }

if ! grep '^built ' "$log" 2>/dev/null | tail -n 1 | grep -q 'every slice verified as it was stored'; then
  say "$log has no finished, verified build; nothing published"
  exit 1
fi
mkdir -p "$results"
say "results page, checksums and stats (every block is read)"
RESULTS_DIR="$results" BUILD_LOG="$log" \
  bash "$checkout/deploy/results.sh" "$game" "$name" "$store"
say "opening book, 4 plies"
"$EGDB_BIN" book --store "$store" --plies 4 \
  --out "$results/$name-book-4.jsonl" --summary "$results/$name-book-4.md"
zstd -q -19 -f --rm "$results/$name-book-4.jsonl"
# Movement slices do not depend on the pieces a side starts with: those a
# smaller published store of the same rules lists must be equal here.
family=${name%-*}
for list in "$checkout"/docs/results/"$family"-[0-9]*.crc; do
  [ -f "$list" ] || continue
  other=$(basename "$list" .crc)
  [ "$other" = "$name" ] && continue
  grep '^move-' "$list" >"$results/$other-move.crc" || { say "$other lists no movement slice"; continue; }
  say "movement slices beside $other's published checksums"
  "$EGDB_BIN" compare --store "$store" --crc "$results/$other-move.crc" --listed-only \
    >"$results/compare-$other.txt" 2>&1 || say "compare: see $results/compare-$other.txt"
done
"$EGDB_BIN" query --store "$store" --plain start >"$results/start.txt"
say "done: $(head -n 1 "$results/start.txt")"
