#!/usr/bin/env bash
# What follows the Taiwan P = 12 build (deploy/taiwan-12.sh) at once, while
# the machine that holds the store still runs: its results page, checksum
# list and stats (deploy/results.sh, the build's checks standing for the
# verify), the 4-ply opening book, and its movement slices set beside
# P = 9's published checksums. Everything goes to DIR/results, for a
# session to read and commit; nothing here writes the checkout.
#
#   bash deploy/taiwan-12-publish.sh [DIR] [CHECKOUT]
#       (defaults $HOME/p12 and this script's checkout)
#
# It runs only when the coordinator's last `built` line says every slice
# was verified as it was stored; else it says why and exits 1.
set -euo pipefail
dir=$(realpath -m "${1:-$HOME/p12}")
checkout=$(realpath -m "${2:-$(dirname "$0")/..}")
# GAME, NAME and STORE (the store's name in DIR) only for a rehearsal on a
# small game, e.g. after `NETNS=reh EGDB_BIN=D/bin/egdb bash
# deploy/netns-cluster.sh morris:taiwan:3 D/tw3.egdb 2 -- --verify-as-built`:
# `GAME=morris:taiwan:3 NAME=taiwan-3 STORE=tw3.egdb bash
# deploy/taiwan-12-publish.sh D` (rehearsed so on 2026-11-28).
game=${GAME:-morris:taiwan:12} name=${NAME:-taiwan-12}
store="$dir/${STORE:-tw12.egdb}"
log="$store.cluster/coordinator.out"
results="$dir/results"
export EGDB_BIN="$dir/bin/egdb"
say() { echo "$(date -u +%FT%TZ) taiwan-12-publish: $*"; }

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
say "movement slices beside P = 9's published checksums"
grep '^move-' "$checkout/docs/results/taiwan-9.crc" >"$results/taiwan-9-move.crc"
# Only those slices' blocks are read where the binary can (--listed-only);
# an older one reads the whole store again and counts the rest as unlisted.
only=()
if "$EGDB_BIN" compare --help | grep -q -- --listed-only; then only=(--listed-only); fi
"$EGDB_BIN" compare --store "$store" --crc "$results/taiwan-9-move.crc" "${only[@]}" \
  >"$results/compare-tw9.txt" 2>&1 || say "compare: see $results/compare-tw9.txt"
"$EGDB_BIN" query --store "$store" --plain start >"$results/start.txt"
say "done: $(head -n 1 "$results/start.txt")"
