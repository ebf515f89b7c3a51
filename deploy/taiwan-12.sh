#!/usr/bin/env bash
# Taiwan Morris P = 12 as it was built (issue 32): deploy/long-build.sh on
# the namespace cluster, a coordinator and two workers with mutual TLS,
# store DIR/tw12.egdb. The same command resumes the build.
#
#   bash deploy/taiwan-12.sh [DIR]     (default $HOME/p12)
exec env MODE=cluster STORE_NAME=tw12.egdb \
  bash "$(dirname "$0")/long-build.sh" morris:taiwan:12 "${1:-$HOME/p12}"
