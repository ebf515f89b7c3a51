#!/usr/bin/env bash
# Sets a table of starts (RULES.md §3a) beside another one: for each
# family, a K × L grid of the first player's value and depth, one entry
# where both agree, **ours / theirs** where they differ. Prints Markdown;
# exits 1 when a start differs.
#
# Usage: bash deploy/compare-starts.sh STARTS_JSON [TABLE_TSV]
#   STARTS_JSON  docs/results/starts.json or the like: objects with
#                "game" (morris:FAMILY:K:L, or morris:lasker:P for P:P),
#                "value" (win, draw, loss) and "depth" (plies, null for
#                a draw)
#   TABLE_TSV    default docs/results/peer/malom-starts.tsv: family, k,
#                l, value, depth (empty for a draw) per start ('#' lines
#                are comments)
# Starts that only one of the two holds are left out.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 STARTS_JSON [TABLE_TSV]" >&2; exit 2; }
python3 - "$1" "${2:-docs/results/peer/malom-starts.tsv}" <<'PY'
import csv, json, re, sys

starts_path, table_path = sys.argv[1], sys.argv[2]


def cell(value, depth):
    return {"win": f"W{depth}", "loss": f"L{depth}", "draw": "D"}[value]


ours = {}
for s in json.load(open(starts_path)):
    found = re.fullmatch(r"morris:(\w+):(\d+)(?::(\d+))?", s["game"])
    if not found:
        sys.exit(f"{starts_path}: not a start: {s['game']}")
    family, k = found.group(1), int(found.group(2))
    l = int(found.group(3) or k)
    ours[family, k, l] = cell(s["value"], s["depth"])

theirs = {}
rows = csv.reader((l for l in open(table_path) if not l.startswith("#")), delimiter="\t")
header = next(rows)
for row in rows:
    r = dict(zip(header, row))
    depth = int(r["depth"]) if r["depth"] else None
    theirs[r["family"], int(r["k"]), int(r["l"])] = cell(r["value"], depth)

both = set(ours) & set(theirs)
differ = sum(ours[s] != theirs[s] for s in both)
print("One entry where both agree; **ours / theirs** where they differ; "
      "· where only one holds the start.")
# Families in the order STARTS_JSON gives them.
for family in [f for f in dict.fromkeys(f for f, _, _ in ours) if any(s[0] == f for s in both)]:
    ks = sorted({k for f, k, _ in both if f == family})
    ls = sorted({l for f, _, l in both if f == family})
    print(f"\n{family}:\n")
    print("| K \\\\ L | " + " | ".join(map(str, ls)) + " |")
    print("|---|" + "---|" * len(ls))
    for k in ks:
        row = []
        for l in ls:
            s = (family, k, l)
            if s not in both:
                row.append("·")
            elif ours[s] == theirs[s]:
                row.append(ours[s])
            else:
                row.append(f"**{ours[s]} / {theirs[s]}**")
        print(f"| **{k}** | " + " | ".join(row) + " |")
print(f"\n{len(both)} starts compared, {len(both) - differ} equal, {differ} differ.")
sys.exit(1 if differ else 0)
PY
