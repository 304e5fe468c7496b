#!/usr/bin/env bash
# Servers the test suite talks to, on 127.0.0.1 only.
#
#   eval "$(bash .ci/services.sh start)"   # start; prints `export S3_...=...` lines
#   bash .ci/services.sh stop              # stop exactly what start started
#
# S3: a single-node OpenStack Swift with s3api, from Debian packages, through
# shared/tools/s3-server (installs with apt on first use, ~25 s; later ~4 s).
# The @zarr/store-s3 tests read S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY and
# S3_REGION; under CI=true they fail rather than skip when these are unset.
# GCS needs nothing here: its tests start an in-process emulator.
#
# Env: S3_PORT (default 9100; PORT+1..+4 are used internally),
#      S3SRV_HOME (server state; default /tmp/zarr-ci-s3, must support user xattrs),
#      S3_SERVER_TOOLS (default ../shared/tools/s3-server beside the repository).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLS=${S3_SERVER_TOOLS:-$ROOT/../shared/tools/s3-server}
export S3SRV_HOME=${S3SRV_HOME:-/tmp/zarr-ci-s3}
PORT=${S3_PORT:-9100}

case ${1:-} in
  start)
    if [ ! -x "$TOOLS/start.sh" ]; then
      echo "services.sh: no S3 server tools at $TOOLS (set S3_SERVER_TOOLS)" >&2
      exit 1
    fi
    mkdir -p "$S3SRV_HOME"
    # start.sh prints the variables; keep its output off stdout, which is for eval.
    "$TOOLS/start.sh" "$PORT" >&2
    sed -n "s/^\(S3_[A-Z_]*\)=\(.*\)$/export \1='\2'/p" "$S3SRV_HOME/run/env"
    ;;
  stop)
    if [ -x "$TOOLS/stop.sh" ]; then "$TOOLS/stop.sh" >&2; fi
    ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
