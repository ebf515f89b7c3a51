#!/usr/bin/env bash
# The fuzz targets (every library crate's tests/fuzz.rs: decoders and
# parsers fed arbitrary and near-valid input, none may panic) for a long soak:
#   bash deploy/fuzz.sh            a million cases per target (hours)
#   bash deploy/fuzz.sh 20000      fewer
# The ordinary test run (deploy/test.sh, CI) runs them with 256 cases each.
# A failure prints its shrunk input: keep it as a test in that fuzz.rs.
set -euo pipefail
cd "$(dirname "$0")/.."
. deploy/env.sh
PROPTEST_CASES="${1:-1000000}" cargo test --release --workspace --test fuzz
