#!/usr/bin/env bash
# The benchmark report of docs/benchmarks.md: engines vs scan on 7 layers, then the
# 8-layer builds (each rule) and the 7-layer depth build, with time and peak
# memory. Needs about 15 minutes and 10 GiB of memory; writes under $BENCH_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/setup.sh
[ -x /usr/bin/time ] || { [ "$(id -u)" -eq 0 ] && apt-get install -y -qq time >/dev/null || sudo apt-get install -y -qq time >/dev/null; }
. deploy/env.sh
cargo build --release --bin egdb
dir="${BENCH_DIR:-$(mktemp -d)}"
echo "machine: $(nproc) cores, $(grep MemTotal /proc/meminfo | awk '{print $2/1048576 " GiB"}'), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
"$EGDB_BIN" bench nim:triangle:7:normal --runs 3 --depth
run() {
  rm -rf "$dir/store"
  /usr/bin/time -f "  wall %e s, peak RSS %M KB" "$EGDB_BIN" build "$@" --store "$dir/store" 2>&1 | grep -v '^{'
  du -sh "$dir/store" | awk '{print "  store " $1}'
}
run nim:triangle:8:normal
run nim:triangle:8:misere
run nim:triangle:7:normal --depth
rm -rf "$dir/store"
