# Shared by the project's scripts: one build cache outside the clone, so that
# fresh clones on the same machine reuse the compiled RocksDB. EGDB_BIN may
# be set beforehand to a fixed copy of the binary: a build that runs across
# sessions keeps one binary while the cache is rebuilt under it.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/egdb/target}"
export EGDB_BIN="${EGDB_BIN:-$CARGO_TARGET_DIR/release/egdb}"
