#!/usr/bin/env bash
# `make scale-test` (issue 20 items 4-6): PostgreSQL, Redis, two Celery
# workers, dagster-daemon, moto's S3 server and a webserver, all started
# from nothing on loopback by the tests (tests/support/scale_services.py),
# and all stopped again: by the tests themselves, and by the trap below
# whatever way this ends.
set -uo pipefail
cd "$(dirname "$0")/.."
pids=$(mktemp -d "${TMPDIR:-/tmp}/duocthu-scale-pids.XXXXXX")
export DUOCTHU_SCALE_PIDS="$pids"
export DUOCTHU_SCALE_DOCS="${DUOCTHU_SCALE_DOCS:-200}"

cleanup() {
  local f pid left=0
  for f in "$pids"/*; do
    [ -e "$f" ] || continue
    pid=$(basename "$f")
    kill -TERM -- "-$pid" 2>/dev/null && left=1
  done
  [ "$left" = 1 ] && sleep 3
  for f in "$pids"/*; do
    [ -e "$f" ] || continue
    pid=$(basename "$f")
    if kill -KILL -- "-$pid" 2>/dev/null; then
      echo "scale-test: stopped a process left running: $pid $(cat "$f")" >&2
    fi
  done
  rm -rf "$pids"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "scale-test: PostgreSQL $(ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -1), $(redis-server --version 2>/dev/null | cut -d' ' -f1-3), ${DUOCTHU_SCALE_DOCS} bench documents"
.venv/bin/python -m pytest tests/scale/test_scale_postgres.py tests/scale/test_scale_celery.py \
  -p no:cacheprovider -q -rs -s
