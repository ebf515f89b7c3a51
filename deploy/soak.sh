#!/usr/bin/env bash
# A hostile soak of `egdb serve` on STORE for SECONDS (default 600): slow
# clients, floods of long lines, malformed requests and dropped
# connections, while honest clients probe; prints their latency and the
# server's peak memory (docs/serving.md, "A server for the public").
# Usage: bash deploy/soak.sh STORE [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 STORE [SECONDS]" >&2; exit 2; }
. deploy/env.sh
[ -x "$EGDB_BIN" ] || cargo build --release --bin egdb
exec "$EGDB_BIN" bench-query --store "$1" --hostile --seconds "${2:-600}"
