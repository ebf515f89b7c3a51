#!/usr/bin/env bash
# Installs what the network-namespace lab tests (tests/netlab) use: iproute2
# for namespaces and openssh for deploy/cluster/launch.sh between them.
# Only as root (the lab needs root; without it those tests skip and say
# so). Idempotent: does nothing when everything is already there.
set -euo pipefail
[ "$(id -u)" -eq 0 ] || exit 0
command -v apt-get >/dev/null 2>&1 || exit 0

need=()
command -v ip >/dev/null 2>&1 || need+=(iproute2)
command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] || need+=(openssh-server)
command -v ssh >/dev/null 2>&1 || need+=(openssh-client)

if [ ${#need[@]} -gt 0 ]; then
  echo "setup-lab: installing ${need[*]}" >&2
  # Not fatal: without them the lab tests say SKIPPED and why.
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null; }; then
    echo "setup-lab: could not install ${need[*]}; the tests that need them will be skipped" >&2
  fi
fi
