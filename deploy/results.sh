#!/usr/bin/env bash
# Builds a Morris game, verifies it, and publishes its results:
# docs/results/NAME.md (how it was made, then `egdb results`),
# docs/results/NAME.crc (one line per slice) and docs/results/NAME.stats.json
# (`egdb stats --json`, verbatim), for anyone to compare.
# Usage: bash deploy/results.sh GAME NAME STORE [build options…]
#   e.g. bash deploy/results.sh morris:taiwan:6 taiwan-6 ~/stores/tw6.egdb
# A store already complete is not built again (its build time then comes
# from its manifest); verify's journal makes a second verify quick.
# BUILD_LOG=FILE: the store was built (over however many runs) with
# `--verify-as-built`, and FILE holds that build's output (`egdb build`'s,
# or a coordinator's); its last "built …" line must say every slice was
# verified as it was stored, and
# stands for the verify (a fresh one takes as long as the build).
# EQUAL_TO=FILE.crc: instead, every slice of the store must have the
# checksum this published list gives it (`egdb compare`, every block read),
# the list of a store that `egdb verify` checked in full: the tables are
# those tables. FILE may be docs/results/NAME.crc itself (read first).
# A store built by `deploy/netns-cluster.sh` (STORE.cluster/ beside it)
# gets its cluster report too: runs, interruptions, bytes over the wire,
# peak memory per process (`deploy/cluster-report.sh`).
# RESULTS_DIR: where the three files go (default docs/results).
set -euo pipefail
# Resolved where the caller stands, before the move to the checkout.
out=$(realpath -m "${RESULTS_DIR:-$(dirname "$0")/../docs/results}")
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { echo "usage: $0 GAME NAME STORE [build options…]" >&2; exit 2; }
game=$1 name=$2 store=$3
shift 3
. deploy/env.sh
[ -x "$EGDB_BIN" ] || cargo build --release --bin egdb
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Wall time and peak resident memory of one command, from GNU time.
timed() {
  local label=$1
  shift
  /usr/bin/time -f "%e %M" -o "$work/$label.time" "$@"
}

# A section setting the movement slices beside another solve's table
# (deploy/compare-published.sh): WHOSE, whose table in words, the table
# under docs/results, where its source is said.
movement_beside() {
  local whose=$1 what=$2 table=$3 source=$4
  echo
  echo "## Movement beside $whose"
  echo
  echo "Each pair of piece counts of the movement phase, both sides to move summed,"
  echo "against $what"
  echo "([\`$table\`]($table), $source);"
  echo "canonical positions, values for the side to move, the longest win or loss"
  echo "in plies (\`bash deploy/compare-published.sh docs/results/$name.stats.json"
  echo "docs/results/$table\`):"
  echo
  bash deploy/compare-published.sh "$out/$name.stats.json" "docs/results/$table" || true
}

timed build "$EGDB_BIN" build "$game" --store "$store" "$@" >"$work/build.out"
if [ -n "${EQUAL_TO:-}" ]; then
  "$EGDB_BIN" compare --store "$store" --crc "$EQUAL_TO" >"$work/compare.out" ||
    { cat "$work/compare.out" >&2; echo "$store: not every slice equals $EQUAL_TO" >&2; exit 1; }
  grep -v '^$' "$work/compare.out" | tail -n 1 >"$work/verify.out"
  verify_how="every slice's checksum equal to $EQUAL_TO, the list of a store \`egdb verify\` checked in full (\`egdb compare --crc\`, every block read)"
  echo "- -" >"$work/verify.time"
elif [ -n "${BUILD_LOG:-}" ]; then
  grep '^built ' "$BUILD_LOG" | tail -n 1 >"$work/verify.out"
  grep -q 'every slice verified as it was stored' "$work/verify.out" ||
    { echo "$BUILD_LOG: its last build did not verify every slice as built" >&2; exit 1; }
  verify_how="\`--verify-as-built\`: each slice checked as it was stored, over every run of the build"
  echo "- -" >"$work/verify.time"
else
  timed verify "$EGDB_BIN" verify --store "$store" --fresh >"$work/verify.out"
  verify_how="\`egdb verify --fresh\`, wall"
fi
"$EGDB_BIN" results --store "$store" --crc "$out/$name.crc" >"$work/results.md"
"$EGDB_BIN" stats --store "$store" --json >"$out/$name.stats.json"

read -r build_s build_kb <"$work/build.time"
read -r verify_s verify_kb <"$work/verify.time"
store_bytes=$(du -sb "$store" | cut -f1)
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
{
  echo "# Results: \`$game\`"
  echo
  echo "Made by \`bash deploy/results.sh $game $name STORE\` at commit"
  echo "$(git rev-parse --short HEAD), $(date -u +%Y-%m-%d), on $(nproc) × $cpu with"
  echo "$(free -g | awk '/Mem:/ {print $2}') GiB of memory."
  echo
  echo "| | |"
  echo "|---|---|"
  if [ -z "${BUILD_LOG:-}${EQUAL_TO:-}" ]; then
    echo "| build (\`egdb build\`, wall) | $build_s s |"
  else
    echo "| build (\`egdb build\` on the built store, wall; the solve times are below) | $build_s s |"
  fi
  echo "| build peak memory (RSS) | $((build_kb / 1024)) MiB |"
  echo "| store on disk | $store_bytes bytes |"
  if [ -z "${BUILD_LOG:-}${EQUAL_TO:-}" ]; then
    echo "| verify ($verify_how) | $verify_s s |"
    echo "| verify peak memory (RSS) | $((verify_kb / 1024)) MiB |"
    echo "| verify | $(tail -n 1 "$work/verify.out" | sed "s|$store|STORE|") |"
  else
    echo "| verify | $verify_how: $(tail -n 1 "$work/verify.out" | sed "s|$store|STORE|") |"
  fi
  echo
  echo "Slice checksums: [\`$name.crc\`]($name.crc) (slice, positions, CRC-32 of"
  echo "its raw bytes); a rebuild that agrees on every line holds the same tables."
  echo "Per-slice counts as \`egdb stats --json\` prints them: [\`$name.stats.json\`]($name.stats.json)."
  echo
  sed '1{/^# /d}' "$work/results.md"
  case $game in
    morris:standard:*)
      movement_beside "the published record" \
        "the per-subspace table the ninemm re-solve published" \
        published/ninemm-movement.tsv "its source named there" ;;
    morris:morabaraba:*)
      movement_beside "Malom" \
        "Gévay and Danner's Malom, run here on its Morabaraba sectors" \
        peer/malom-morabaraba-movement.tsv "how in its header" ;;
  esac
  case $game in
    morris:standard:* | morris:morabaraba:* | morris:lasker:*)
      echo
      echo "## States beside Malom's"
      echo
      echo "Gévay and Danner's Malom stores a sector of W and B pieces on the board"
      echo "in f(W) × C(24 − W, B) entries (the side to move's pieces up to the 16"
      echo "symmetries, the other's ranked among the free points); each slice here is"
      echo "one or two such tables. The plan's tables beside the sectors Malom"
      echo "reaches from the start (\`egdb plan $game --json |"
      echo "python3 deploy/malom-states.py $game\`):"
      echo
      echo '```'
      "$EGDB_BIN" plan "$game" --json | python3 deploy/malom-states.py "$game" || true
      echo '```' ;;
  esac
  if [ -d "$(realpath -m "$store").cluster" ]; then
    echo
    echo "## The cluster build"
    echo
    echo "Built over the network by a coordinator and workers, each a process on a"
    echo "host of its own made of network namespaces (\`deploy/netns-cluster.sh\`),"
    echo "across the runs below; every figure from the build's own logs and samples"
    echo "(\`bash deploy/cluster-report.sh STORE\`)."
    echo
    bash deploy/cluster-report.sh "$store" | sed 's/^## /### /'
  fi
} >"$work/page.md"
# Whole or not at all: a step that failed above left the old page.
mv "$work/page.md" "$out/$name.md"
echo "wrote $out/$name.md, $out/$name.crc and $out/$name.stats.json"
