#!/usr/bin/env bash
# What follows a long build (deploy/long-build.sh) at once, while the
# machine that holds the store still runs: its results page, checksum list
# and stats (deploy/results.sh, the build's checks standing for a verify),
# the 4-ply opening book, and its slices set beside those of each published
# checksum list of the same rules (docs/results/FAMILY-P.crc and
# starts-FAMILY-K.crc) that do not depend on the start.
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

# The page's account of a local long build: its runs (DIR/pauses.log),
# the interruptions sessions noted (DIR/interruptions.note), the worker
# time of the solves and checks (`egdb status`), and the peak memory
# long-build.sh sampled (DIR/memory.log; runs before it sampled have none).
long_build_section() {
  local runs binaries peak sampled
  runs=$(grep -c ' long-build.sh: start ' "$dir/pauses.log" || true)
  binaries=$(grep ' long-build.sh: start ' "$dir/pauses.log" | sed 's/.*binary [^ ]*\/\([^/ ,]*\).*/\1/' | uniq | paste -sd ' ' - || true)
  echo
  echo "## The long build"
  echo
  echo "Built by \`bash deploy/long-build.sh $game\`, every slice checked as"
  echo "it was stored. Runs: $runs; binaries, in order: $binaries."
  echo "$("$EGDB_BIN" status --store "$store" | sed -n 's/^stored: /Stored: /p')."
  if [ -s "$dir/memory.log" ]; then
    peak=$(awk '$5 > max { max = $5 } END { printf "%.2f", max / 1048576 }' "$dir/memory.log")
    sampled=$(awk '{ print $3 }' "$dir/memory.log" | uniq | wc -l)
    echo "Peak memory (resident, sampled every 30 s): $peak GiB; runs sampled:"
    echo "$sampled of $runs, from $(head -n 1 "$dir/memory.log" | cut -d' ' -f1)."
  fi
  if [ -s "$dir/interruptions.note" ]; then
    echo
    echo "Interruptions, as noted when the build resumed (by the session, or by"
    echo "long-build.sh from the log):"
    echo
    sed 's/^\([^ ]*\)  */* \1: /' "$dir/interruptions.note"
  fi
}

if ! grep '^built ' "$log" 2>/dev/null | tail -n 1 | grep -q 'every slice verified as it was stored'; then
  say "$log has no finished, verified build; nothing published"
  exit 1
fi
mkdir -p "$results"
say "results page, checksums and stats (every block is read)"
RESULTS_DIR="$results" BUILD_LOG="$log" \
  bash "$checkout/deploy/results.sh" "$game" "$name" "$store"
if [ ! -d "$store.cluster" ]; then
  # A cluster build's page has its report; a local one's gets its runs,
  # interruptions, worker time and peak memory from DIR.
  say "the long build's runs"
  long_build_section >>"$results/$name.md"
fi
say "opening book, 4 plies"
"$EGDB_BIN" book --store "$store" --plies 4 \
  --out "$results/$name-book-4.jsonl" --summary "$results/$name-book-4.md"
zstd -q -19 -f --rm "$results/$name-book-4.jsonl"
# Movement slices do not depend on the pieces a side starts with, nor hand
# slices (RULES.md §3a), named by what they hold, on the start: those a
# published list of the same rules holds (a smaller game's, a store of
# starts') must be equal here. Placement ids count rounds of one start.
family=$(echo "$game" | cut -d: -f2)
"$EGDB_BIN" plan "$game" --json >"$results/plan.json"
for list in "$checkout"/docs/results/"$family"-[0-9]*.crc "$checkout"/docs/results/starts-"$family"-[0-9]*.crc; do
  [ -f "$list" ] || continue
  other=$(basename "$list" .crc)
  [ "$other" = "$name" ] && continue
  python3 - "$results/plan.json" "$list" >"$results/$other-shared.crc" <<'PY'
import json, sys
planned = {s["slice"] for s in json.load(open(sys.argv[1]))["slices"]}
for line in open(sys.argv[2]):
    words = line.split()
    if words and words[0].startswith(("move-", "hand-")) and words[0] in planned:
        sys.stdout.write(line)
PY
  [ -s "$results/$other-shared.crc" ] || { say "$other lists no slice of $game"; continue; }
  say "$(wc -l <"$results/$other-shared.crc") of its slices listed in $other.crc"
  "$EGDB_BIN" compare --store "$store" --crc "$results/$other-shared.crc" --listed-only \
    >"$results/compare-$other.txt" 2>&1 || say "compare: see $results/compare-$other.txt"
done
rm -f "$results/plan.json"
"$EGDB_BIN" query --store "$store" --plain start >"$results/start.txt"
say "done: $(head -n 1 "$results/start.txt")"
