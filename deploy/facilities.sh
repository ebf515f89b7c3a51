#!/usr/bin/env bash
# Which of the facilities some tests need this machine has, found by
# trying each (after deploy/setup-*.sh): printed as one comma-separated
# line for EGDB_REQUIRE, which deploy/test.sh exports. A test needing a
# facility on that list fails where it would otherwise skip, so that a
# machine able to run it cannot pass without running it.
#
#   root     mounting a small tmpfs (tests/cli_interrupt.rs)
#   lab      network namespaces with TUN devices (tests/netlab)
#   ssh      sshd and ssh for the lab's launch.sh test
#   slurm    the single-machine Slurm, two nodes in service (tests/slurm.rs)
#   browser  chromium (tests/explorer.rs)
set -uo pipefail
have=()
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT

if [ "$(id -u)" -eq 0 ]; then
  mkdir -p "$probe/disk"
  if mount -t tmpfs -o size=1M egdb-probe "$probe/disk" 2>/dev/null; then
    umount "$probe/disk" && have+=(root)
  fi
  ns="egdb-probe-$$" dev="egprobe$$"
  if ip netns add "$ns" 2>/dev/null; then
    if ip tuntap add dev "$dev" mode tun 2>/dev/null; then
      ip link set "$dev" netns "$ns" 2>/dev/null && have+=(lab)
      ip link del "$dev" 2>/dev/null || ip -n "$ns" link del "$dev" 2>/dev/null
    fi
    ip netns del "$ns"
  fi
  if [[ " ${have[*]} " == *" lab "* ]] && [ -x /usr/sbin/sshd ] && command -v ssh >/dev/null &&
    command -v ssh-keygen >/dev/null; then
    have+=(ssh)
  fi
  conf=${EGDB_SLURM_DIR:-/var/lib/egdb-slurm}/slurm.conf
  if [ -f "$conf" ] && command -v sinfo >/dev/null; then
    up=$(SLURM_CONF=$conf timeout 20 sinfo -h -N -o '%T' 2>/dev/null |
      grep -cE '^(idle|mixed|allocated|completing)')
    [ "${up:-0}" -ge 2 ] && have+=(slurm)
  fi
fi
command -v chromium >/dev/null && have+=(browser)
(IFS=,; echo "${have[*]}")
