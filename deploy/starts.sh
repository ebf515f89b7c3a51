#!/usr/bin/env bash
# The table of starts (issue 62, RULES.md §3a): for each family whose loss
# rule counts pieces in hand (standard, morabaraba, lasker), one store of
# morris:FAMILY:N:N, built with every slice checked as it is stored. Such
# a store holds every position with at most N pieces a side, so every
# start K, L <= N is a query of it. Writes, in docs/results/:
#   starts.json             one object per start and family: game, value,
#                           depth in plies (null for a draw), checksum list
#   starts.md               a K x L grid per family, and the equal starts
#                           beside the two-phase stores' published pages
#   starts-FAMILY-N.crc     each store's checksum list (`egdb results --crc`)
#   starts-FAMILY-N.md      each store's results page
# Usage: bash deploy/starts.sh N [DIR]
#   DIR holds the stores (default $HOME/starts); kept, and resumed by the
#   same command after a stop. A store of N - 1 there lends its slices
#   (`--reuse`: hand slices are named by what they hold, so all of them are
#   the larger store's too). NICE (default 10) is the builds' niceness: a
#   long build may run beside them.
set -euo pipefail
# Read whole before it runs: bash reads a file as it goes, and a run takes
# hours in which the checkout may change.
{
cd "$(dirname "$0")/.."
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 N [DIR]" >&2; exit 2; }
n=$1
case $n in 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11 | 12) ;; *) echo "starts: N is 3 to 12, not $n" >&2; exit 2 ;; esac
dir=$(realpath -m "${2:-$HOME/starts}")
. deploy/env.sh
[ -x "$EGDB_BIN" ] || cargo build --release --bin egdb
mkdir -p "$dir"
EGDB_BIN="$EGDB_BIN" NICE="${NICE:-10}" python3 - "$n" "$dir" docs/results <<'PY'
import json, os, re, subprocess, sys

egdb, niceness = os.environ["EGDB_BIN"], os.environ["NICE"]
n, store_dir, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
families = ["standard", "morabaraba", "lasker"]
empty = "." * 24


def run(*args):
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(args)}: {done.stderr.strip()}")
    return done


def compared(script, *args):
    # Exits 1 when something differs: the page shows what.
    done = subprocess.run(["bash", f"deploy/{script}", *args], capture_output=True, text=True)
    if done.returncode not in (0, 1):
        sys.exit(f"{script}: {done.stderr.strip()}")
    return done.stdout


def spec(family, k, l):
    # Lasker with equal hands is the preset's name.
    return f"morris:lasker:{k}" if family == "lasker" and k == l else f"morris:{family}:{k}:{l}"


cpu = [l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")]
machine = f"{len(cpu)} × {cpu[0] if cpu else 'an unnamed CPU'}"
starts, grids = [], {}
for family in families:
    name = f"starts-{family}-{n}"
    store = os.path.join(store_dir, f"{family}-{n}.egdb")
    smaller = os.path.join(store_dir, f"{family}-{n - 1}.egdb")
    reuse = ["--reuse", smaller] if os.path.isdir(smaller) else []
    built = run("nice", "-n", niceness, egdb, "build", spec(family, n, n),
                "--store", store, "--verify-as-built", *reuse)
    # `built …`, or a store finished before: `… already holds …`.
    last = [l for l in built.stdout.splitlines()
            if l.startswith("built ") or "already holds the complete" in l][-1]
    if "every slice verified as it was stored" not in last:
        sys.exit(f"{store}: not every slice was checked as it was stored: {last}")
    if not last.startswith("built "):
        # A store finished before: its page keeps the line of the build
        # that made it (slices, positions, time, bytes).
        try:
            made = re.search(r"^Made by .*?(built .*)$", open(f"{out}/{name}.md").read(), re.M)
        except FileNotFoundError:
            made = None
        if made and f" in {store}: " in made.group(1):
            last = made.group(1)
    page = run(egdb, "results", "--store", store, "--crc", f"{out}/{name}.crc").stdout
    with open(f"{out}/{name}.md", "w") as f:
        f.write(f"# Results: `{spec(family, n, n)}`, every start up to {n} pieces a side\n\n")
        f.write(f"Made by `bash deploy/starts.sh {n}`; every slice checked as it was "
                f"stored (`--verify-as-built`). {last}\n\n{page}")
    grid = {}
    for k in range(3, n + 1):
        for l in range(3, n + 1):
            answer = json.loads(run(egdb, "query", "--store", store,
                                    f"{empty} b {k} {l}", "--json").stdout)
            value, depth = answer["value"], answer["depth"]
            grid[k, l] = (value, depth)
            starts.append({"game": spec(family, k, l), "value": value,
                           "depth": depth if value != "draw" else None,
                           "list": f"docs/results/{name}.crc"})
    grids[family] = grid

with open(f"{out}/starts.json", "w") as f:
    json.dump(starts, f, indent=1)
    f.write("\n")


def cell(value, depth):
    return {"win": f"W{depth}", "loss": f"L{depth}", "draw": "D"}[value]


def published(family, p):
    # The two-phase store's page, where one was published.
    try:
        text = open(f"{out}/{family}-{p}.md").read()
    except FileNotFoundError:
        return None
    found = re.search(r"The first player to move: \*\*(.+?)\*\*", text)
    return found.group(1) if found else None


titles = {"standard": "Nine Men's Morris rules", "morabaraba": "Morabaraba rules",
          "lasker": "Lasker Morris (place or move while holding pieces)"}
with open(f"{out}/starts.md", "w") as f:
    f.write(f"""# Every start up to {n} pieces a side

Made by `bash deploy/starts.sh {n}`: for each family, one store of
`morris:FAMILY:{n}:{n}` (RULES.md §3a), every slice checked as it was stored;
it holds every position with at most {n} pieces a side, so each start is a
query of it (`egdb query --store STORE "{empty} b K L"`). Rows: K, the
pieces of the first player (who moves first); columns: L, the second
player's. `W23`: the first player wins in 23 plies; `L12`: loses in 12;
`D`: a draw. [`starts.json`](starts.json) holds the same, one object per
start; each store's page and checksum list are `starts-FAMILY-{n}.md` and
`.crc`.

""")
    for family in families:
        grid = grids[family]
        f.write(f"## {titles[family]}\n\n| K \\\\ L | " +
                " | ".join(str(l) for l in range(3, n + 1)) + " |\n|---|" +
                "---|" * (n - 2) + "\n")
        for k in range(3, n + 1):
            f.write(f"| **{k}** | " + " | ".join(cell(*grid[k, l]) for l in range(3, n + 1)) + " |\n")
        f.write("\n")
    f.write("## Equal starts beside the two-phase stores\n\n"
            "Where placing and moving mix, an equal start is still all placing then "
            "all moving (no mill can close against an empty board there), so it must "
            "have the two-phase game's value: the published pages of `morris:FAMILY:P` "
            "(built by other code: placement rounds, not hand slices) against this table.\n\n"
            "| game | this table | published page |\n|---|---|---|\n")
    for family in ["standard", "morabaraba"]:
        for p in range(3, n + 1):
            theirs = published(family, p)
            if theirs is not None:
                ours = grids[family][p, p]
                f.write(f"| `morris:{family}:{p}` | {cell(*ours)} | {theirs} "
                        f"([{family}-{p}.md]({family}-{p}.md)) |\n")
    equal = {family: [grids[family][p, p] for p in range(3, n + 1)] for family in families}
    f.write(f"""
## Beside the publication

Gévay and Danner (IEEE TCIAIG 2016, arXiv 1408.0032) solved every start
K, L = 3…12 of the three families (their "extended strong solution"). Their
table could not be read on the machine that made this page: only the
paper's abstract and Malom's readme files were. The abstract says that in
Morabaraba most starts with equal pieces, the standard 12:12 among them, are
first-player wins, where in the other two games such starts are usually
draws; the readme files give Nine Men's Morris (9:9) and Lasker Morris
(10:10) as draws and Morabaraba (12:12) as a first-player win.

| family | equal starts here, 3:3 to {n}:{n} | first-player wins here | the publication |
|---|---|---|---|
""")
    said = {"standard": "usually draws; 9:9 a draw", "morabaraba": "most are first-player wins; 12:12 a win",
            "lasker": "usually draws; 10:10 a draw"}
    for family in families:
        wins = sum(1 for value, _ in equal[family] if value == "win")
        f.write(f"| {family} | {' '.join(cell(*c) for c in equal[family])} | {wins} of "
                f"{len(equal[family])} | {said[family]} |\n")
    malom = "docs/results/peer/malom-starts.tsv"
    if os.path.exists(malom):
        beside = compared("compare-starts.sh", f"{out}/starts.json", malom)
        slices = []
        for family in families:
            stats = os.path.join(store_dir, f"{family}-{n}.stats.json")
            with open(stats, "w") as file:
                file.write(run(egdb, "stats", "--store", os.path.join(store_dir, f"{family}-{n}.egdb"),
                               "--json").stdout)
            slices.append(compared("compare-slices.sh", stats, family).strip())
        f.write(f"""
### Beside Malom, solved here

Their program is public: Malom's solver, built on this project's machine
from its source, solved the starts of [`peer/malom-starts.tsv`](peer/malom-starts.tsv)
(how, in its header), each family's own variant, one sector after another.
Its value and depth of each start beside this table's:

{beside}
The sectors it solved for them are slices of the stores above: their
classes' wins, losses and draws and their longest lines
([`peer/malom-starts-slices.tsv`](peer/malom-starts-slices.tsv)) beside
each store's (`deploy/compare-slices.sh`):

""" + "\n".join(f"* {line}" for line in slices) + "\n")
    f.write(f"""
## What larger starts would take here

`egdb plan morris:FAMILY:K:K --memory 20GiB --rates-from STORE` with the
rates of the stores above (one store of K:K answers every start up to K a
side), solved and checked as built, with the slice that needs the most
memory. The rates are what the builds took on {machine}, beside whatever
else ran there (a long build at nice 19 at least): a machine of its own
does better.

| K:K | {" | ".join(families)} | together | on disk |
|---|---|---|---|---|---|
""")
    for k in range(n + 1, min(n + 3, 12) + 1):
        plans = []
        for family in families:
            store = os.path.join(store_dir, f"{family}-{n}.egdb")
            plans.append(json.loads(run(egdb, "plan", spec(family, k, k), "--memory", "20GiB",
                                        "--rates-from", store, "--json").stdout))
        hours = [p["projected_seconds_with_checks"] / 3600 for p in plans]
        f.write(f"| {k}:{k} | " + " | ".join(
            f"{h:.1f} h ({p['largest_memory_need'] / 2**30:.1f} GiB)" for h, p in zip(hours, plans))
                + f" | **{sum(hours):.1f} h** | "
                + " + ".join(f"{p['projected_disk_bytes'] / 1e9:.1f}" for p in plans) + " GB |\n")

print(f"{len(starts)} starts written to {out}/starts.json and {out}/starts.md")
PY
exit
}
