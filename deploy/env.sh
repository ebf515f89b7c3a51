# Shared by the project's scripts: one build cache outside the clone, so that
# fresh clones on the same machine reuse the compiled RocksDB.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/egdb/target}"
export EGDB_BIN="$CARGO_TARGET_DIR/release/egdb"
