#!/usr/bin/env bash
# What a build through `netns-cluster.sh` did, run by run, as Markdown: when
# each run started and how it ended, the bytes of shards that crossed the
# network (the coordinator's own count at the end of a run; for a run
# killed without an end, its last status sample) and each process's peak
# memory (sampled), each worker that exited while the coordinator ran
# (killed, out of memory), started again or not, and the checks of a build
# that verifies as it goes, and where the workers' time went (their lines
# per task, fetching apart), and a model of the bytes the same tasks would
# have sent with shard caches of other sizes. Everything is read from
# STORE.cluster/, but for the progress: the slices the store holds and the
# plan's entries they stand for, by the path that solved them (`egdb
# stats`, `egdb plan`; the store may be building), and the slices each
# task reads (`egdb plan --json`).
#   bash deploy/cluster-report.sh STORE
# EGDB_BIN: the binary that reads the store (default the build cache's).
set -euo pipefail
store=${1:?usage: cluster-report.sh STORE}
home="$(realpath -m "$store").cluster"
[ -d "$home" ] || { echo "cluster-report: no $home (not built by netns-cluster.sh)" >&2; exit 2; }
. "$(dirname "$0")/env.sh"
exec python3 - "$home" "$EGDB_BIN" <<'PY'
import datetime, json, os, re, subprocess, sys
from collections import OrderedDict

home = sys.argv[1]

def lines(name):
    path = os.path.join(home, name)
    if not os.path.exists(path):
        return []
    return open(path, encoding="utf-8", errors="replace").read().splitlines()

# Runs: a start line each; an end line for those the script saw end, with
# the coordinator's count of the bytes that crossed.
runs = []
for line in lines("runs.log"):
    stamp, _, what = line.partition(" ")
    if what.startswith("start"):
        runs.append({"start": stamp, "end": None, "how": "no end line (still running, or killed)",
                     "exact": None, "sample": None, "samples": 0, "peaks": {},
                     "restarts": []})
    elif re.match(r"ws\d+: worker exit", what) and runs:
        again = "" if "started again" in what else " (not started again)"
        runs[-1]["restarts"].append(f"{what.split(':')[0]} at {stamp[11:19]}{again}")
    elif what.startswith("end") and runs:
        run = runs[-1]
        how, _, wire = what.removeprefix("end: ").partition("; this run: ")
        run["end"], run["how"] = stamp, how
        numbers = [int(n) for n in re.findall(r"\d+", wire)]
        if len(numbers) >= 2:
            run["exact"] = numbers[:2]

def run_at(stamp):
    """The run a sample taken at `stamp` belongs to (runs.log is in order)."""
    found = None
    for run in runs:
        if run["start"] <= stamp:
            found = run
    return found

for line in lines("status.jsonl"):
    try:
        sample = json.loads(line)
    except json.JSONDecodeError:
        continue  # a line cut off by a kill
    run = run_at(sample["time"])
    if run is None:
        continue
    run["samples"] += 1
    status = sample.get("status")
    if status:
        run["sample"] = (status["bytes_sent"], status["bytes_received"])
    for process, kib in sample["peak_rss_kib"].items():
        run["peaks"][process] = max(run["peaks"].get(process, 0), kib)

gib = lambda n: f"{n / 2**30:.2f} GiB"

def egdb_json(*args):
    """An egdb command's JSON output, or why there is none."""
    try:
        done = subprocess.run([sys.argv[2], *args, "--json"], capture_output=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, str(e)
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines()
        return None, said[-1] if said else f"exit {done.returncode}"
    return json.loads(done.stdout), None

# Progress: the store's own records against the plan of the game the first
# run named.
game = next((l.split(" ", 2)[2].split(",")[0] for l in lines("runs.log") if " start: " in l), None)
print("## Progress\n")
plan, plan_why = egdb_json("plan", game) if game else (None, "no run in runs.log")
stats, why = egdb_json("stats", "--store", home.removesuffix(".cluster")) if plan else (None, plan_why)
if stats is None:
    print(f"Not read: {why}.\n")
else:
    entries = {s["slice"]: s["entries"] for s in plan["slices"]}
    total = sum(entries.values())
    by_path = {}
    for record in stats:
        path = (record.get("solved_by") or {}).get("path", "unknown")
        row = by_path.setdefault(path, [0, 0, 0.0, 0])
        row[0] += 1
        row[1] += entries.get(record["slice"], 0)
        row[2] += record["seconds"]
        row[3] += record["stored_bytes"]
    done = [sum(row[k] for row in by_path.values()) for k in range(4)]
    print(f"{done[0]} of {len(entries)} slices, {done[1]:,} of {total:,} entries "
          f"({100 * done[1] / total:.1f} % of the plan).\n")
    print("| solved by | slices | entries | of the plan | solve seconds | stored |")
    print("|---|---:|---:|---:|---:|---:|")
    for path, (slices, solved, seconds, stored) in sorted(by_path.items()):
        print(f"| {path} | {slices} | {solved:,} | {100 * solved / total:.1f} % "
              f"| {seconds:.0f} | {gib(stored)} |")
    print()

print("## The cluster's runs\n")
print("Bytes of shards sent to workers (the dependencies they read) and received")
print("from them (the slices they solved): the coordinator's own count at the end")
print("of a run, or, for a run killed without an end, its last status sample")
print("(what it moved after that sample is not counted).\n")
print("| run | started | ended | how | workers that exited | samples | sent to workers | received from workers | counted |")
print("|---:|---|---|---|---|---:|---:|---:|---|")
sent = received = 0
for i, run in enumerate(runs, 1):
    wire, counted = run["exact"], "at the end"
    if wire is None:
        wire, counted = run["sample"], "last sample"
    if wire is None:
        wire, counted = (0, 0), "nothing sampled"
    sent, received = sent + wire[0], received + wire[1]
    restarts = ", ".join(run["restarts"]) or "none"
    print(f"| {i} | {run['start']} | {run['end'] or '–'} | {run['how']} | {restarts} | {run['samples']} "
          f"| {wire[0]} ({gib(wire[0])}) | {wire[1]} ({gib(wire[1])}) | {counted} |")
print(f"| all | | | | | | {sent} ({gib(sent)}) | {received} ({gib(received)}) | |")
print("\n## Peak memory per process\n")
print("The largest resident size (VmHWM) sampled of each process in each run.\n")
processes = sorted({p for run in runs for p in run["peaks"]}, key=lambda p: (p != "coordinator", p))
print("| run | " + " | ".join(processes) + " |")
print("|---:|" + "---:|" * len(processes))
for i, run in enumerate(runs, 1):
    if run["peaks"]:
        cells = [gib(run["peaks"][p] * 1024) if p in run["peaks"] else "–" for p in processes]
        print(f"| {i} | " + " | ".join(cells) + " |")

# The checks of a build with --verify-as-built (or of a leased verify), as
# the coordinator logged them: each slice's pass with the checking worker's
# seconds; a check repeated after a lost lease counts its seconds again.
def coordinator_events():
    """The coordinator's log lines as parsed JSON (a line cut off by a kill
    is left out); read once, for the checks and the cache model."""
    for line in lines("coordinator.log"):
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(event, dict) and isinstance(event.get("fields"), dict):
            yield event

logged = list(coordinator_events())
passed, failed, per_worker = {}, [], {}
for event in logged:
    fields = event["fields"]
    message = fields.get("message")
    if message == "slice verified":
        worker = per_worker.setdefault(fields.get("worker", "?"), [0, 0, 0.0])
        worker[0] += 1
        worker[1] += int(fields.get("positions", 0))
        worker[2] += float(fields.get("seconds", 0.0))
        passed[fields.get("slice")] = True
    elif message == "slice FAILED its check":
        failed.append(fields.get("slice"))
if passed or failed:
    print("\n## Checks\n")
    print(f"{len(passed)} slices passed their check against their moves, "
          f"{len(failed)} failed{': ' + ', '.join(map(str, failed)) if failed else ''}.\n")
    print("| worker | checks | positions | seconds |")
    print("|---|---:|---:|---:|")
    for name, (checks, positions, seconds) in sorted(per_worker.items()):
        print(f"| {name} | {checks} | {positions} | {seconds:.0f} |")
    total = [sum(w[k] for w in per_worker.values()) for k in range(3)]
    print(f"| all | {total[0]} | {total[1]} | {total[2]:.0f} |")

# Each worker's line per task (`slice solved` / `slice checked`, with the
# seconds spent fetching its dependencies): only workers run with -v log
# them, and only binaries from 2026-11-27 on, so these cover part of a build.
tasks, split = {}, {}
for name in sorted(os.listdir(home)):
    match = re.fullmatch(r"worker-(\d+)\.log", name)
    if not match:
        continue
    for line in lines(name):
        try:
            fields = json.loads(line)["fields"]
            kind = {"slice solved": "solve", "slice checked": "check"}[fields["message"]]
            phase = "movement" if fields["slice"].startswith("move-") else "placement"
            seconds, fetching = float(fields["seconds"]), float(fields["fetching"])
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            continue
        row = tasks.setdefault((f"ws{match[1]}", kind, phase), [0, 0.0, 0.0])
        row[0] += 1
        row[1] += seconds
        row[2] += fetching
        # Binaries from 2026-11-28 on split the fetching.
        try:
            parts = [float(fields[k]) for k in ("wire", "decode", "cache_read", "cache_write")]
            parts += [int(fields["bytes_fetched"]), int(fields["bytes_from_cache"])]
        except (KeyError, TypeError, ValueError):
            continue
        total = split.setdefault((f"ws{match[1]}", kind), [0] * 7)
        total[0] += 1
        for i, part in enumerate(parts):
            total[i + 1] += part
if tasks:
    print("\n## Where the workers' time went\n")
    print("From each worker's line per task (those that logged one): its seconds,")
    print("and those spent fetching its dependencies (reading, checking, decoding,")
    print("writing them into the worker's cache).\n")
    print("| worker | task | phase | tasks | seconds | fetching | share |")
    print("|---|---|---|---:|---:|---:|---:|")
    for (worker, kind, phase), (count, seconds, fetching) in sorted(tasks.items()):
        share = 100 * fetching / seconds if seconds else 0
        print(f"| {worker} | {kind} | {phase} | {count} | {seconds:.0f} | {fetching:.0f} | {share:.1f} % |")
if split:
    print("\n## Where the fetching went\n")
    print("From the tasks whose lines split it: seconds waiting for the coordinator")
    print("(its reading, the wire), decoding (checksums, inflating, wherever the")
    print("shard came from), reading and writing the worker's shard cache (a solved")
    print("slice's shard is written too), and the stored bytes fetched and read from")
    print("the cache.\n")
    print("| worker | task | tasks | waiting | decoding | cache reads | cache writes | fetched | from the cache | decoding per GiB |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for (worker, kind), (count, wire, decode, read, write, fetched, cached) in sorted(split.items()):
        decoded = (fetched + cached) / 2**30
        per = f"{decode / decoded:.1f} s" if decoded else "–"
        print(f"| {worker} | {kind} | {count} | {wire:.1f} s | {decode:.1f} s | {read:.1f} s | {write:.1f} s "
              f"| {fetched / 2**20:.1f} MiB | {cached / 2**20:.1f} MiB | {per} |")
# The same tasks under other shard-cache limits, a model: each task the
# coordinator logged as finished (which worker, from when to when) reads
# its slice's dependencies, a check the slice too, through a cache per
# worker that keeps what it fetched or solved, least recently used out
# past its limit; each read it does not hold is sent at the size the
# slice was stored with (it is ranked smaller only once no job reads it).
# Replayed on the P = 12 build's log it came within 3 % of the
# coordinator's counts for runs with 3 GiB caches. Tasks lost with a
# worker are not in the log.
def model_events():
    """Each logged task's start and end in time order, and each slice's
    stored size."""
    events, sizes = [], {}
    for event in logged:
        try:
            fields = event["fields"]
            kind = {"slice done": "solve", "slice verified": "check"}[fields["message"]]
            when = datetime.datetime.fromisoformat(event["timestamp"].replace("Z", "+00:00")).timestamp()
            task = (kind, fields["slice"], fields["worker"])
            start = when - float(fields["seconds"])
        except (KeyError, TypeError, ValueError):
            continue
        if kind == "solve":
            sizes[task[1]] = int(fields.get("stored_bytes", 0))
        events += [(start, False, task), (when, True, task)]
    return sorted(events, key=lambda e: e[:2]), sizes

def modelled_sent(events, sizes, reads, limit):
    caches, held, sent = {}, {}, 0
    def keep(worker, cache, slice):
        if slice not in cache:
            cache[slice] = sizes.get(slice, 0)
            held[worker] = held.get(worker, 0) + cache[slice]
        cache.move_to_end(slice)
        while held[worker] > limit and len(cache) > 1:
            held[worker] -= cache.popitem(last=False)[1]
    for _, finished, (kind, slice, worker) in events:
        cache = caches.setdefault(worker, OrderedDict())
        if finished:
            if kind == "solve":
                keep(worker, cache, slice)
            continue
        for read in ([slice] if kind == "check" else []) + reads.get(slice, []):
            if read in cache:
                cache.move_to_end(read)
            else:
                sent += sizes.get(read, 0)
                keep(worker, cache, read)
    return sent

events, sizes = model_events()
if events:
    print("\n## The same tasks under other shard-cache limits\n")
    reads = {s["slice"]: s["reads"] for s in plan["slices"] if "reads" in s} if plan else {}
    if not reads:
        print("Not modelled: the plan names no slice's reads "
              f"({plan_why or 'a binary older than `egdb plan --json` with reads'}).")
    else:
        print("A model: the tasks the coordinator logged, replayed with each worker's")
        print("shard cache (`egdb worker --cache-limit`) at each size; a read the cache")
        print("does not hold is sent. Set it beside the measured count above. (The")
        print("tasks keep the order they ran in; `coordinator/examples/shard_model.rs`")
        print("replays the plan through today's scheduler instead.)\n")
        print("| cache limit per worker | sent to workers (model) |")
        print("|---|---:|")
        for label, limit in [("1 GiB", 2**30), ("3 GiB", 3 * 2**30), ("6 GiB", 6 * 2**30),
                             ("12 GiB", 12 * 2**30), ("none", float("inf"))]:
            sent = modelled_sent(events, sizes, reads, limit)
            print(f"| {label} | {sent} ({gib(sent)}) |")
PY
