#!/usr/bin/env bash
# The test suite: set up the machine, then every crate's tests (release
# profile: the tests solve real tablebases, and it shares the build cache
# with deploy/run.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/setup.sh
bash deploy/setup-lab.sh
bash deploy/setup-browser.sh
bash deploy/setup-slurm.sh || echo "test: no Slurm here; tests/slurm.rs will say why" >&2
. deploy/env.sh
# What this machine was found able to do: tests needing it fail, not skip.
EGDB_REQUIRE=$(bash deploy/facilities.sh)
export EGDB_REQUIRE
echo "test: tests needing any of [$EGDB_REQUIRE] must run here (deploy/facilities.sh)" >&2
bash deploy/layering.sh
python3 deploy/module-cycles.py
cargo test --release --workspace "$@"
# The release profile has neither debug assertions nor overflow checks: the
# crates that build without RocksDB (games; db-format's codecs) run once
# more in the dev profile, which has both (about two minutes).
cargo test -p egdb-games
cargo test -p egdb-db-format --no-default-features --lib
