#!/usr/bin/env bash
# Sets a store's movement slices beside a published per-subspace table:
# for each unordered pair of piece counts, the canonical positions, wins,
# losses and draws (for the side to move, both sides to move summed, as a
# slice holds both) and the longest win or loss, ours and theirs, and
# whether they agree. Prints Markdown; exits 1 when a pair differs.
#
# Usage: bash deploy/compare-published.sh STATS_JSON [PUBLISHED_TSV]
#   STATS_JSON     `egdb stats --store STORE --json` of a Morris store
#   PUBLISHED_TSV  default docs/results/published/ninemm-movement.tsv:
#                  mover, other, wins, losses, draws, max_win, max_loss
#                  per ordered subspace ('#' lines are comments); also
#                  docs/results/peer/malom-morabaraba-movement.tsv
# Pairs the store does not hold (or the table does not give) are left out.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 STATS_JSON [PUBLISHED_TSV]" >&2; exit 2; }
python3 - "$1" "${2:-docs/results/published/ninemm-movement.tsv}" <<'PY'
import csv, json, sys
from collections import defaultdict

stats_path, table_path = sys.argv[1], sys.argv[2]
ours = defaultdict(lambda: {"wins": 0, "losses": 0, "draws": 0, "longest": 0})
for s in json.load(open(stats_path)):
    if s["phase"] != "movement":
        continue
    pair = tuple(sorted((s["mover_pieces"], s["opponent_pieces"]), reverse=True))
    o = ours[pair]
    o["wins"] += s["canonical_win"]
    o["losses"] += s["canonical_loss"]
    o["draws"] += s["canonical_draw"]
    o["longest"] = max(o["longest"], s["max_depth"])

theirs = defaultdict(lambda: {"wins": 0, "losses": 0, "draws": 0, "longest": 0})
rows = csv.reader((l for l in open(table_path) if not l.startswith("#")), delimiter="\t")
header = next(rows)
for row in rows:
    r = dict(zip(header, row))
    pair = tuple(sorted((int(r["mover"]), int(r["other"])), reverse=True))
    t = theirs[pair]
    for k in ("wins", "losses", "draws"):
        t[k] += int(r[k])
    t["longest"] = max(t["longest"], int(r["max_win"]), int(r["max_loss"]))

def n(x):
    return f"{x:,}"

pairs = sorted(set(ours) & set(theirs))
differ = 0
print("One number where both agree; **ours / theirs** where they differ.")
print()
print("| pieces | positions | wins | losses | draws | longest, plies | |")
print("|---|---:|---|---|---|---|---|")
for pair in pairs:
    o, t = ours[pair], theirs[pair]
    same = all(o[k] == t[k] for k in ("wins", "losses", "draws", "longest"))
    differ += not same
    cells = []
    for k in ("wins", "losses", "draws", "longest"):
        cells.append(n(o[k]) if o[k] == t[k] else f"**{n(o[k])} / {n(t[k])}**")
    total = sum(o[k] for k in ("wins", "losses", "draws"))
    print(f"| {pair[0]} v {pair[1]} | {n(total)} | " + " | ".join(cells)
          + f" | {'equal' if same else 'differs'} |")
print()
print(f"{len(pairs)} pairs compared, {len(pairs) - differ} equal, {differ} differ.")
sys.exit(1 if differ else 0)
PY
