#!/usr/bin/env bash
# Sets a store's slices beside a peer's per-slice figures: for each slice
# the peer lists and the store holds (parity halves together), the
# canonical wins, losses and draws for the side to move and the longest
# win or loss, ours and theirs. Prints Markdown with the slices that
# differ and a count; exits 1 when one differs.
#
# Usage: bash deploy/compare-slices.sh STATS_JSON FAMILY [TABLE_TSV]
#   STATS_JSON  `egdb stats --store STORE --json` of a Morris store
#   FAMILY      the table's rows to read (its `family` column)
#   TABLE_TSV   default docs/results/peer/malom-starts-slices.tsv: family,
#               slice, wins, losses, draws, longest ('#' lines are comments)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 STATS_JSON FAMILY [TABLE_TSV]" >&2; exit 2; }
python3 - "$1" "$2" "${3:-docs/results/peer/malom-starts-slices.tsv}" <<'PY'
import csv, json, re, sys
from collections import defaultdict

stats_path, family, table_path = sys.argv[1:4]
keys = ("wins", "losses", "draws", "longest")
ours = defaultdict(lambda: dict.fromkeys(keys, 0))
for s in json.load(open(stats_path)):
    o = ours[re.sub(r"-p[01]$", "", s["slice"])]
    o["wins"] += s["canonical_win"]
    o["losses"] += s["canonical_loss"]
    o["draws"] += s["canonical_draw"]
    o["longest"] = max(o["longest"], s["max_depth"])

theirs = {}
rows = csv.reader((l for l in open(table_path) if not l.startswith("#")), delimiter="\t")
header = next(rows)
for row in rows:
    r = dict(zip(header, row))
    if r["family"] == family:
        theirs[r["slice"]] = {k: int(r[k]) for k in keys}

both = sorted(set(ours) & set(theirs))
differ = [s for s in both if ours[s] != theirs[s]]
if differ:
    print("| slice | " + " | ".join(keys) + " |")
    print("|---|" + "---|" * len(keys))
    for s in differ:
        print(f"| {s} | " + " | ".join(
            f"{ours[s][k]:,}" if ours[s][k] == theirs[s][k] else f"**{ours[s][k]:,} / {theirs[s][k]:,}**"
            for k in keys) + " |")
    print()
print(f"{family}: {len(both)} slices compared, {len(both) - len(differ)} equal, {len(differ)} differ.")
sys.exit(1 if differ else 0)
PY
