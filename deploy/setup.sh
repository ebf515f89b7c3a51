#!/usr/bin/env bash
# Installs what a fresh Debian machine with only the Rust toolchain lacks to
# build egdb: clang and libclang (the rocksdb crate generates its bindings
# with bindgen and compiles RocksDB's C++), curl for README's tour and
# python3 for the suite's check of module circles.
# protoc comes vendored through a crate.
# Idempotent: does nothing when everything is already there.
set -euo pipefail

need=()
command -v clang >/dev/null 2>&1 || need+=(clang)
if ! ls /usr/lib/llvm-*/lib/libclang*.so* >/dev/null 2>&1 \
   && ! ls /usr/lib/x86_64-linux-gnu/libclang*.so* >/dev/null 2>&1; then
  need+=(libclang-dev)
fi
command -v g++ >/dev/null 2>&1 || need+=(g++)
# README's tour asks the HTTP API with curl (tests/readme_tour.rs runs it).
command -v curl >/dev/null 2>&1 || need+=(curl)
# deploy/module-cycles.py, which the test suite runs first.
command -v python3 >/dev/null 2>&1 || need+=(python3)

if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${need[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
