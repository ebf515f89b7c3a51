#!/usr/bin/env bash
# A long build across sessions (Morabaraba P = 12, Lasker P = 10, …): every
# slice checked as it is stored, niced, in the background, resumed by the
# same command after any stop, and published the moment it ends
# (long-build-publish.sh), while the machine that holds the store still runs.
#
#   bash deploy/long-build.sh GAME [DIR] [-- BUILD OPTIONS…]
#       DIR defaults to $HOME/NAME, NAME being GAME without `morris:` and
#       with `:` as `-` (morris:morabaraba:12: ~/morabaraba-12); the store
#       is DIR/NAME.egdb (STORE_NAME to name it otherwise).
#
# Run it in the background, e.g.
#   setsid nohup bash deploy/long-build.sh morris:morabaraba:12 \
#     >>~/morabaraba-12/run.out 2>&1 </dev/null &
#
# MODE=local (default): one `egdb build` process, one worker of THREADS
# engine threads (default 2) and MEMORY (default 14GiB, or the plan's
# largest slice and a GiB where that is more) reading the store in place;
# MODE=cluster: a
# coordinator and two workers on hosts of network namespaces with mutual
# TLS (netns-cluster.sh, its settings: THREADS, MEMORY, MEMORY_WS1,
# CACHE_LIMIT), every shard over gRPC. Which is faster here, measured on
# morris:morabaraba:5: docs/cluster.md, "Long builds".
#
# At its first start on a machine it pins the binary of the build cache in
# DIR/bin/ (a build that runs for days keeps one binary while the checkout
# changes), and at each start it takes copies of the scripts it runs into
# DIR/deploy/. Every start and end goes to DIR/pauses.log, a local build's
# peak memory to DIR/memory.log.
set -euo pipefail
# The peak resident memory (VmHWM, KiB) of the build, the `egdb` child of
# process `parent`, a line each time it grows, looked at every 30 s: a run
# that a session's end kills leaves its peak (MODE=cluster has its own).
peak_memory() {
  local parent=$1 out=$2 pid="" kib last=0
  while kill -0 "$parent" 2>/dev/null; do
    [ -n "$pid" ] || pid=$(pgrep -n -x -P "$parent" egdb || true)
    kib=$(awk '/^VmHWM:/ {print $2}' "/proc/${pid:-0}/status" 2>/dev/null || true)
    if [ -n "$kib" ] && [ "$kib" -gt "$last" ]; then
      echo "$(date -u +%FT%TZ) pid $pid peak_rss_kib $kib" >>"$out"
      last=$kib
    fi
    sleep 30
  done
}
# A local run whose start has no end after it in DIR/pauses.log was
# killed (a session's end, the machine): noted in DIR/interruptions.note
# with what its log says was done last, before the next run starts. (The
# cluster's own report finds such runs in its runs.log.)
note_interruption() {
  local dir=$1
  tail -n 1 "$dir/pauses.log" 2>/dev/null | grep -q ' long-build.sh: start ' || return 0
  python3 - "$dir/build.log" >>"$dir/interruptions.note" <<'PY'
import datetime, json, sys

last = stored = checked = None
try:
    with open(sys.argv[1], errors="replace") as log:
        lines = log.readlines()
except FileNotFoundError:
    lines = []
for line in lines:
    # A line that is not one of the build's own (a panic's text, a cut
    # last line) is passed over: nothing here may stop a start.
    try:
        entry = json.loads(line)
        message = entry["fields"].get("message")
        if not isinstance(entry["timestamp"], str):
            continue
    except (ValueError, KeyError, TypeError, AttributeError):
        continue
    last = entry
    if message == "slice done":
        stored = entry
    elif message == "slice verified":
        checked = entry


def at(entry):
    return entry["timestamp"][11:19] + "Z" if entry else "none"


def slice_at(entry):
    return f"{entry['fields'].get('slice')} {at(entry)}" if entry else "none"


fields = stored["fields"] if stored else {}
count = f"{fields['done']}/{fields['of']} stored" if "done" in fields else "none stored"
now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
print(f"{now}  the run stopped without an end (killed: a session's end or the machine); "
      f"last log line {at(last)} (last stored {slice_at(stored)}, last checked "
      f"{slice_at(checked)}; {count}); the slice in flight, if any, is lost; "
      f"resumed with the same command (noted by long-build.sh)")
PY
}
# The whole script is read before it runs (bash reads a file as it goes,
# and this one may be edited during a run of days).
main() {
  cd "$(dirname "$0")/.."
  local game dir name store mode build log status commit script need sampler
  game=${1:?usage: long-build.sh GAME [DIR] [-- BUILD OPTIONS…]}
  shift
  name=$(echo "${game#morris:}" | tr ':/' '--')
  dir=$HOME/$name
  if [ $# -gt 0 ] && [ "$1" != -- ]; then
    dir=$1
    shift
  fi
  [ "${1:-}" = -- ] && shift
  dir=$(realpath -m "$dir")
  store="$dir/${STORE_NAME:-$name.egdb}"
  mode=${MODE:-local}
  case $mode in local | cluster) ;; *) echo "long-build: MODE is local or cluster, not $mode" >&2; exit 2 ;; esac
  mkdir -p "$dir/bin" "$dir/deploy"
  . deploy/env.sh
  if [ ! -x "$dir/bin/egdb" ] && [ -n "$(ls -A "$store" 2>/dev/null)" ] && [ -z "${PIN_ANEW:-}" ]; then
    # A binary of a newer store format would carry the store on in its own.
    echo "long-build: $store exists but no binary is pinned in $dir/bin: link $dir/bin/egdb to the binary that began the build, or set PIN_ANEW=1 to pin this checkout's (a newer store format carries the store on in its own)" >&2
    exit 2
  fi
  if [ ! -x "$dir/bin/egdb" ]; then
    # The checkout's own binary, whatever the cache held before.
    cargo build --release --bin egdb
    commit=$(git rev-parse --short HEAD 2>/dev/null || echo local)
    git diff --quiet HEAD 2>/dev/null || commit="$commit-changed"
    cp "$EGDB_BIN" "$dir/bin/egdb-$commit"
    ln -sfn "egdb-$commit" "$dir/bin/egdb"
  fi
  # Renamed into place: a copy a running build reads is never rewritten.
  for script in netns-cluster.sh env.sh results.sh cluster-report.sh long-build-publish.sh; do
    cp "deploy/$script" "$dir/deploy/$script.new"
    mv "$dir/deploy/$script.new" "$dir/deploy/$script"
  done
  export EGDB_BIN="$dir/bin/egdb"
  if [ "$mode" = local ] && [ -z "${MEMORY:-}" ]; then
    # 14 GiB leaves the foreground its share; a game whose largest slice
    # needs more (Lasker P = 10: 15.4 GiB) gets what it needs and a GiB.
    need=$("$EGDB_BIN" plan "$game" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["largest_memory_need"])')
    MEMORY=$((need >= 13 << 30 ? (need >> 30) + 2 : 14))GiB
  fi
  [ "$mode" = local ] && note_interruption "$dir"
  echo "$(date -u +%FT%TZ) long-build.sh: start $game ($mode), binary $(readlink -f "$dir/bin/egdb")${MEMORY:+, memory $MEMORY}" >>"$dir/pauses.log"
  export NICE="${NICE:-19}" THREADS="${THREADS:-2}"
  # Run with setsid, the build has an autogroup of its own, and the kernel
  # shares the cores between autogroups before it looks at any nice value:
  # at nice 19 alone the build still took half the CPU beside a compile.
  # The group's own nice makes it take what the foreground leaves.
  echo "$NICE" >/proc/self/autogroup 2>/dev/null || true
  if [ "$mode" = cluster ]; then
    export MEMORY="${MEMORY:-8.5GiB}" MEMORY_WS1="${MEMORY_WS1:-9.75GiB}" CACHE_LIMIT="${CACHE_LIMIT:-3GiB}"
    # Leases of 120 s: behind a foreground compile, a heartbeat of a worker
    # at nice 19 once came later than the default 30 s.
    build=(bash "$dir/deploy/netns-cluster.sh" "$game" "$store" 2 -- --verify-as-built --lease-seconds 120 "$@")
    log="$store.cluster/coordinator.out"
  else
    # A stated budget, not 80 % of what is free when it starts: the
    # worker keeps the tables it reads up to its budget, and the
    # foreground (a test suite) needs the rest. The largest 12-piece
    # slice needs 7.4 GiB (Morabaraba) to 9.7 GiB (Taiwan).
    build=(nice -n "$NICE" "$EGDB_BIN" -v build "$game" --store "$store" --workers 1
      --threads "$THREADS" --memory "$MEMORY" --verify-as-built "$@")
    log="$dir/build.out"
  fi
  # The build's standard output (its last line, `built …`) goes to the log
  # the publish step reads.
  status=0
  if [ "$mode" = cluster ]; then
    "${build[@]}" || status=$?
  else
    # In the foreground, so that a Ctrl-C of the script reaches it.
    peak_memory $$ "$dir/memory.log" &
    sampler=$!
    "${build[@]}" >>"$log" 2>>"$dir/build.log" || status=$?
    kill "$sampler" 2>/dev/null || true
  fi
  echo "$(date -u +%FT%TZ) long-build.sh: end $game, exit $status" >>"$dir/pauses.log"
  [ "$status" = 0 ] || exit "$status"
  exec bash "$dir/deploy/long-build-publish.sh" "$game" "$dir" "$PWD" "$log" "$store"
}
main "$@"
exit
