#!/usr/bin/env bash
# The main job: set up the machine, build egdb, and build the embedded
# default tablebase (Triangular Nim, 7 layers, both rules) into ./tablebases.
# Usage: bash deploy/run.sh [GAME ...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/setup.sh
. deploy/env.sh
cargo build --release --bin egdb
games=("$@")
[ ${#games[@]} -gt 0 ] || games=(nim:triangle:7:normal nim:triangle:7:misere)
mkdir -p tablebases
for game in "${games[@]}"; do
  store="tablebases/$(echo "$game" | tr ':/' '--').egdb"
  "$EGDB_BIN" build "$game" --store "$store"
  "$EGDB_BIN" query --store "$store" start | sed -n 1p
done
