#!/usr/bin/env bash
# The crates that must not reach the network, checked from their
# dependency trees: a program that only reads a store (egdb-tablebase)
# and the checker (egdb-check) link no gRPC, HTTP server or TLS.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
for crate in egdb-tablebase egdb-check egdb-games egdb-db-format; do
  found=$(cargo tree --quiet -e normal -p "$crate" --prefix none \
    | awk '{print $1}' | grep -E '^(tonic|tonic-[a-z-]+|axum|hyper|hyper-util|rustls|tokio-rustls|egdb-proto|egdb-serve)$' \
    | sort -u | tr '\n' ' ' || true)
  if [ -n "$found" ]; then
    echo "layering: $crate depends on $found" >&2
    status=1
  fi
done
[ $status -eq 0 ] && echo "layering: egdb-tablebase, egdb-check, egdb-games and egdb-db-format link no network crate" >&2
exit $status
