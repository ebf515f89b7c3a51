#!/usr/bin/env bash
# The Taiwan reading experiment (issue 16, widened for issue 12): builds
# the P = 6 game under RULES.md §2 as written and under each other reading
# (the preset morris:taiwan-protected and the rules files in
# docs/variants/taiwan-readings/), and writes docs/results/taiwan-rules.md:
# each reading's start value, first placements, and White's replies at
# the positions of the 2011 thesis's table 3.
# Usage: bash deploy/taiwan-rules.sh DIR   (stores go in DIR; kept, reused)
# With P9_STORES="taiwan=STORE taiwan-protected=STORE" (finished P = 9
# stores) the page also sets table 4, the thesis's P = 9 line, ply by ply
# beside each store's values (`egdb book --along`).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
dir=$1
. deploy/env.sh
[ -x "$EGDB_BIN" ] || cargo build --release --bin egdb
mkdir -p "$dir"
EGDB_BIN="$EGDB_BIN" python3 - "$dir" >"$dir/taiwan-rules.md" <<'PY'
import glob, json, os, subprocess, sys

egdb, store_dir = os.environ["EGDB_BIN"], sys.argv[1]
order = "a1 d1 g1 b2 d2 f2 c3 d3 e3 a4 b4 c4 e4 f4 g4 c5 d5 e5 b6 d6 f6 a7 d7 g7".split()


def position(black, white, hand_b, hand_w):
    cells = "".join("B" if p in black else "W" if p in white else "." for p in order)
    return f"{cells} w {hand_b} {hand_w}"


# Table 3 of the thesis: White to move after each of these openings
# (plies 2, 4, 6 and 8 of its line of perfect play).
cases = [
    ("1. b2", position({"b2"}, set(), 5, 6)),
    ("b2 a1 c3", position({"b2", "c3"}, {"a1"}, 4, 5)),
    ("b2 a1 c3 c4 d2", position({"b2", "c3", "d2"}, {"a1", "c4"}, 3, 4)),
    ("b2 a1 c3 c4 d2 a4 f2xa4", position({"b2", "c3", "d2", "f2"}, {"a1", "c4"}, 2, 3)),
]


def described(path):
    """A rules file's first comment line: what the reading changes."""
    with open(path, encoding="utf-8") as f:
        return f.readline().lstrip("# ").strip().rstrip(".")


readings = [
    ("taiwan", "morris:taiwan:6", "RULES.md §2 as written: a mill takes any piece"),
    ("taiwan-protected", "morris:taiwan-protected:6",
     "A mill made while placing takes a piece outside mills, unless all are in mills"),
] + [
    (os.path.basename(path)[:-5], f"morris:file:{path}", described(path))
    for path in sorted(glob.glob("docs/variants/taiwan-readings/*.toml"))
]


def run(*args):
    return subprocess.run([egdb, *args], check=True, capture_output=True, text=True).stdout


for name, spec, _ in readings:
    print(f"building {spec}", file=sys.stderr)
    run("build", spec, "--store", os.path.join(store_dir, f"{name}-6.egdb"))


def query(reading, text):
    return json.loads(run("query", "--store", os.path.join(store_dir, f"{reading}-6.egdb"),
                          text, "--json"))


def said(probe):
    depth = probe.get("depth")
    return probe["value"] + (f" in {depth}" if depth is not None else "")


def replies(answer):
    """The mover's moves by what they do for the mover: the position each
    leads to is valued for the other side."""
    outcome = {"loss": "win", "draw": "draw", "win": "lose"}
    grouped = {"win": [], "draw": [], "lose": []}
    for m in answer["moves"]:
        grouped[outcome[m["value"]]].append(m["move"])
    return grouped


def first_placements(start):
    return ([m["move"] for m in start["moves"] if m["value"] == "loss"],
            [m["move"] for m in start["moves"] if m["value"] == "win"])


answers = {name: {text: query(name, text) for text in ["start"] + [t for _, t in cases]}
           for name, _, _ in readings}
partition = {name: [replies(answers[name][t]) for _, t in cases] for name, _, _ in readings}


def a4_after_b2(name):
    return next(m for m in answers[name][cases[0][1]]["moves"] if m["move"] == "a4")


def thesis_claims(name):
    """The thesis's claims this reading keeps: the start a draw; after 1. b2
    the reply a4 draws; at plies 4, 6 and 8 the replies that win and draw
    as RULES.md as written has them (where issue 16 found that reading
    agrees with the thesis)."""
    start_draw = answers[name]["start"]["value"] == "draw"
    later = partition[name][1:] == partition["taiwan"][1:]
    return start_draw, "a4" in partition[name][0]["draw"], later


print("# The Taiwan reading experiment: which rules did the published P = 6 and P = 9 results use?\n")
print("Made by `bash deploy/taiwan-rules.sh DIR` (it writes this page to")
print("`DIR/taiwan-rules.md`): each P = 6 game built by `egdb build`, every")
print("answer below by `egdb query` on it. The thesis (2011) publishes P = 6")
print("and P = 9 as draws; under RULES.md as written egdb finds P = 6 a draw")
print("and P = 9 a first-player win ([`taiwan-9.md`](taiwan-9.md)). Its table 3")
print("follows a line of play for P = 6: after 1. b2 it says White's a4 draws,")
print("and it names the replies that win and draw at plies 4, 6 and 8, where")
print("RULES.md as written agrees with it (issue 16). Each reading below")
print("changes one rule of RULES.md §2; \"plies 4, 6, 8\" says whether its")
print("replies there win and draw as the thesis's do. The stores' checksum")
print("lists are in [`taiwan-readings/`](taiwan-readings/README.md).\n")
print("| reading | what it changes | start | first placements that lose | after 1. b2, White's a4 | plies 4, 6, 8 as the thesis | every claim kept |")
print("|---|---|---|---|---|---|---|")
for name, spec, meaning in readings:
    start = answers[name]["start"]
    start_draw, a4_draws, later = thesis_claims(name)
    a4 = a4_after_b2(name)
    a4_text = {"loss": "wins", "draw": "draws", "win": "loses"}[a4["value"]]
    a4_text += f" ({said(a4)} for Black)" if a4["value"] != "draw" else ""
    every = start_draw and a4_draws and later
    losing = first_placements(start)[1]
    print(f"| `{name}` | {meaning} | {said(start)} | {' '.join(losing) or 'none'} | "
          f"{a4_text} | {'yes' if later else 'no'} | {'**yes**' if every else 'no'} |")
print()

for name, spec, meaning in readings:
    start = answers[name]["start"]
    winning, losing = first_placements(start)
    print(f"## `{name}` — {meaning}\n")
    print(f"`{spec}`. Start position: the first player to move has a **{said(start)}**.\n")
    print(f"First placements that win: {', '.join(winning) or 'none'}; "
          f"that lose: {', '.join(losing) or 'none'}.\n")
    print("| White to move after | White's replies that win | draw | lose |")
    print("|---|---|---|---|")
    for (case, text), g in zip(cases, partition[name]):
        print(f"| {case} (`{text}`, {said(answers[name][text])}) | {' '.join(g['win']) or '—'} | "
              f"{' '.join(g['draw']) or '—'} | {' '.join(g['lose']) or '—'} |")
    print()


def stats(reading):
    out = run("stats", "--store", os.path.join(store_dir, f"{reading}-6.egdb"), "--json")
    return {s["slice"]: s for s in json.loads(out)}


plain = stats("taiwan")
print("## Where the readings' tables differ from RULES.md as written\n")
print("| reading | slices | differ | of them movement | placement rounds that differ |")
print("|---|---:|---:|---:|---|")
for name, _, _ in readings[1:]:
    other = stats(name)
    differ = [k for k in other if k not in plain or plain[k]["raw_crc32"] != other[k]["raw_crc32"]]
    movement = [k for k in differ if other[k]["phase"] == "movement"]
    rounds = sorted({other[k]["ply"] for k in differ if other[k]["phase"] == "placement"})
    print(f"| `{name}` | {len(other)} | {len(differ)} | {len(movement)} | "
          f"{', '.join(str(r) for r in rounds) or '—'} |")

def best_line(reading, text):
    """Perfect play from `text` to the game's end: the fastest win, the
    slowest loss, else the first drawing move (a draw has no end)."""
    line = []
    while len(line) < 200:
        answer = query(reading, text)
        value, moves = answer["value"], answer["moves"]
        if not moves or value == "draw":
            break
        if value == "win":
            move = min((m for m in moves if m["value"] == "loss"), key=lambda m: m["depth"])
        else:
            move = max(moves, key=lambda m: m["depth"])
        line.append((answer, move))
        text = move["after"]
    return line


after_a4 = a4_after_b2("taiwan")["after"]
black = replies(query("taiwan", after_a4))
print("\n## Where RULES.md as written leaves the thesis: 1. b2 a4\n")
print(f"After 1. b2 a4 (`{after_a4}`) Black wins with {' '.join(black['win']) or 'nothing'}; "
      f"draws with {' '.join(black['draw']) or 'nothing'}. The line below is perfect play from")
print("there under RULES.md §2 (the winner's fastest win, the loser's slowest loss),")
print("each ply with the mover's value before it: the place to look, with the")
print("thesis's rules at hand, for the first move they would not allow or would")
print("value otherwise.\n")
print("| ply | mover | value | move | position after |")
print("|---:|---|---|---|---|")
for ply, (answer, move) in enumerate(best_line("taiwan", after_a4), start=3):
    mover = "Black" if ply % 2 == 1 else "White"
    print(f"| {ply} | {mover} | {said(answer)} | {move['move']} | `{move['after']}` |")
print()

kept = [name for name, _, _ in readings if all(thesis_claims(name))]
a4_draws = [name for name, _, _ in readings if thesis_claims(name)[1]]
names = lambda found: ", ".join(f"`{n}`" for n in found)
print("\n## Against the thesis\n")
if kept:
    print(f"Every claim of table 3 holds under {names(kept)}: the candidate for the")
    print("rules behind the published P = 9 draw.")
else:
    print("No reading here keeps every claim of table 3.", end=" ")
    if a4_draws:
        print(f"The thesis's a4 after 1. b2 draws only under {names(a4_draws)}, and there")
        print("the replies at plies 4, 6 and 8 are not the thesis's; under every other")
        print("reading a4 loses.", end=" ")
    else:
        print("The thesis's a4 after 1. b2 loses under every one of them.", end=" ")
    print("No single change of RULES.md §2 that the rules")
    print("options express is the rule set table 3 was solved under.")
print("""
## The thesis at P = 9: its first placements against ours

The thesis's figure 5-2 gives the P = 9 first placements: "B1 and B4"
lose, none wins, so P = 9 is a draw; its table 4 draws from 1. A1. B1 is
no point of our board, nor are B5 (table 3, ply 5) and G5 (table 4, ply
5), though the thesis's other names are ours: its labels are not all
ours. Our P = 9 store (the table in [`taiwan-9.md`](taiwan-9.md), from
`egdb results`) has the corners (a1) drawing, as table 4 says, the
middle square's midpoints (b4) losing, as figure 5-2 says, and the middle
square's corners (b2) losing too; the midpoints of the outer and inner
squares (a4, d1, ...) win for the first player. Read as b2 (one digit
off), B1 makes three of the four orbits agree; read as d1 (one letter
off), two. Either way the thesis and RULES.md §2 as written part at the
outer and inner midpoints: the thesis has no first placement that wins;
in our store, after 1. d1 the second player loses in 48 plies.
""", end="")

# Table 4 of the thesis: its P = 9 line, and at each ply the moves it
# says draw for the mover (None: "many", not listed).
table4 = [
    ("a1", None), ("c3", {"c3"}), ("a4", {"a4", "d7", "g7", "c4", "c5", "d5", "b6", "f6"}),
    ("a7", {"a7"}), ("e4", {"g7", "g5", "c5", "e4"}),
    ("d5", {"d7", "g4", "c4", "d5", "e5", "d3", "b6", "d6", "f6", "f2"}),
    ("d7", {"d7", "g7", "f4"}), ("e5", {"g7", "g4", "c4", "e5", "d3", "b6", "d6"}),
    ("d1", {"d1"}), ("g1", None), ("c5", {"c5"}), ("d3", None), ("e3", {"e3"}),
    ("g4", {"g4", "b6", "d6", "f6"}),
]
p9 = dict(item.split("=", 1) for item in os.environ.get("P9_STORES", "").split())


def along(store):
    line = " ".join(move for move, _ in table4)
    out = subprocess.run([egdb, "book", "--store", store, "--along", line],
                         capture_output=True, text=True)
    if out.returncode != 0:
        return None, out.stderr.strip().splitlines()[-1]
    return [json.loads(entry) for entry in out.stdout.splitlines()], None


if not p9:
    print("Table 4's moves beside our stores' values, ply by ply, come with the P = 9")
    print("stores rebuilt (`egdb book --along`).")
for name, store in p9.items():
    entries, refused = along(store)
    print(f"\n### Table 4 under `{name}` (`morris:{name}:9`)\n")
    if entries is None:
        print(f"The line is not legal under this reading: `{refused}`.")
        continue
    print("Each ply: the thesis's move, the moves it says draw for the mover, and ours:")
    print("the mover's value before the move and the moves that win and draw there.\n")
    print("| ply | mover | move | thesis: draws | ours: value | ours: win | ours: draw | as the thesis |")
    print("|---:|---|---|---|---|---|---|---|")
    parted = None
    for ply, ((move, claimed), entry) in enumerate(zip(table4, entries), start=1):
        ours = replies(entry)
        mover = "Black" if ply % 2 == 1 else "White"
        if claimed is None:
            agrees = move in ours["draw"] and not ours["win"]
            claimed_text = "many (not listed)"
        else:
            agrees = set(ours["draw"]) == claimed and not ours["win"]
            claimed_text = " ".join(sorted(claimed))
        if not agrees and parted is None:
            parted = ply
        print(f"| {ply} | {mover} | {move} | {claimed_text} | {said(entry)} | "
              f"{' '.join(ours['win']) or '—'} | {' '.join(ours['draw']) or '—'} | "
              f"{'yes' if agrees else '**no**'} |")
    last = entries[len(table4)]
    print(f"\nAfter ply {len(table4)} (`{last['position']}`), {'Black' if len(table4) % 2 == 0 else 'White'} "
          f"to move has a {said(last)}.", end=" ")
    if parted is None:
        print("Every ply is as the thesis says.")
    else:
        print(f"The first ply where ours is not the thesis's is {parted}.")
PY
cp "$dir/taiwan-rules.md" docs/results/taiwan-rules.md
echo "wrote docs/results/taiwan-rules.md"
