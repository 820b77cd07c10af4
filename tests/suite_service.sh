#!/usr/bin/env bash
# tests/suite_service.sh - the sweep service: unit tests of common/svc, then
# the integration tests of tests/integration/ (every test_*.sh, test_remote_worker.sh
# included: it needs root for its network namespace) against real PostgreSQL, real
# ZeroMQ sockets and real processes, then two of them again with the
# sanitizer builds (build/san/gateway, build/san/worker).  One private PostgreSQL cluster serves
# every test (each test has its own database); everything started here is
# stopped on exit, pass or fail (test_up.sh starts its own cluster through
# `make up`).  Needs the solver and the front end (served by test_up.sh): if
# build/gateway, build/worker, build/mbs or build/www do not build, the suite fails.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
start=$SECONDS
make -s build/gateway build/worker build/mbs build/www/index.html build/tests/svc_test build/tests/zmq_peer || { echo "suite_service: build failed" >&2; exit 1; }
build/tests/svc_test || exit 1

TMP=$(mktemp -d /tmp/mbsweep-suite.XXXXXX); chmod 755 "$TMP"
cleanup() { bash scripts/pg.sh stop "$TMP/pg" >/dev/null 2>&1; rm -rf "$TMP"; }
trap cleanup EXIT
trap 'exit 1' INT TERM
PG_FAST=1 bash scripts/pg.sh start "$TMP/pg" >/dev/null || { echo "suite_service: cannot start PostgreSQL" >&2; exit 1; }
export IT_PG_DIR=$TMP/pg

fail=0
for t in tests/integration/test_*.sh; do
  t0=$SECONDS
  if timeout 300 bash "$t" > "$TMP/$(basename "$t").log" 2>&1; then
    grep 'ok:' "$TMP/$(basename "$t").log" | sed 's/^/  /'
    echo "PASS $(basename "$t" .sh) ($((SECONDS - t0)) s)"
  else
    echo "FAIL $(basename "$t" .sh) ($((SECONDS - t0)) s)"; sed 's/^/  | /' "$TMP/$(basename "$t").log"; fail=1
  fi
done
# the same programs built with ASan + UBSan (errors abort): hostile input,
# bounded work, an end-to-end sweep once more, and the hostile worker messages
if make -s build/san/gateway build/san/worker; then
  for t in tests/integration/test_hostile.sh tests/integration/test_bounds.sh tests/integration/test_sweep.sh \
      tests/integration/test_zmq_security.sh; do
    t0=$SECONDS
    if MBSWEEP_TEST_BUILD=$ROOT/build/san ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
        timeout 300 bash "$t" > "$TMP/san-$(basename "$t").log" 2>&1; then
      echo "PASS $(basename "$t" .sh) under ASan/UBSan ($((SECONDS - t0)) s)"
    else
      echo "FAIL $(basename "$t" .sh) under ASan/UBSan"; sed 's/^/  | /' "$TMP/san-$(basename "$t").log"; fail=1
    fi
  done
else
  echo "FAIL sanitizer build of the service"; fail=1
fi
echo "suite_service: $((SECONDS - start)) s"
exit $fail
