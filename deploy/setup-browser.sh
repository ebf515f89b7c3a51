#!/usr/bin/env bash
# Headless Chromium (Debian's package) for the explorer's browser test
# (tests/explorer.rs). Idempotent; not fatal when it cannot be installed:
# the test then says why it skipped the browser part.
set -euo pipefail
command -v chromium >/dev/null 2>&1 && exit 0
command -v apt-get >/dev/null 2>&1 || { echo "setup-browser: no apt-get to install chromium" >&2; exit 0; }
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "setup-browser: installing chromium" >&2
if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null; }; then
  echo "setup-browser: could not install chromium; the browser test will skip" >&2
fi
