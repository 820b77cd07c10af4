#!/usr/bin/env bash
# bench/web_sweep.sh - issue 10's load figures of the web front end: the
# bundle's size (gzip -9 of each file of build/www) and the time until the
# sweep view is interactive (its job count shown, every job loaded, the
# plots drawn by the following frame) in headless Chromium for sweeps of 10^4
# and 10^5 jobs (target: under 2 s for 10^5).  Starts PostgreSQL and the
# gateway (serving build/www) on free ports (tests/integration/lib.sh,
# stopped on exit); the jobs, their results and metrics are inserted in bulk
# by SQL as tests/browser/run.sh does (3 parameters, 2 responses, every 97th
# job failed, every 13th with a warning).  bench/web/sweep_tti.mjs opens each
# view ROUNDS times (default 3) in a fresh page and prints the median (the
# first run is the first opening, later ones find the gateway's cache); then
# the gateway is restarted and each view opened once more (RESTART=0: not).
# Needs build/gateway and build/www.
source "$(dirname "$0")/../tests/integration/lib.sh"
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || fail "no chromium at $CHROMIUM (bash scripts/deps.sh --browser)"
WWW=${WWW:-$ROOT/build/www}   # another bundle for a comparison (e.g. an older commit's, built elsewhere)
[ -f "$WWW/index.html" ] || fail "$WWW is not built (make web)"
echo "bundle (gzip -9 of each file of $WWW/assets: the NAME.gz the build made, as the gateway sends it):"
total=0
for f in "$WWW"/assets/*; do
  case $f in *.gz) continue ;; esac
  raw=$(stat -c %s "$f")
  if [ -f "$f.gz" ]; then gz=$(stat -c %s "$f.gz"); else gz=$(gzip -9 -n -c "$f" | wc -c); fi
  total=$((total + gz))
  printf '  %-28s %8d B  %7d B gzip\n' "$(basename "$f")" "$raw" "$gz"
done
echo "  all assets: $total B gzip"
it_init websweep
# no warming (gateway/warm.c) for the timed rounds: the first opening of each
# view makes its bodies, as for a sweep finished elsewhere (WARM=1: warmed)
nowarm=$([ "${WARM:-0}" = 1 ] || ! "$DEVBUILD/gateway" --help 2>&1 | grep -q -- --no-warm || echo --no-warm)
start_gateway --www "$WWW" $nowarm
MID=$(post_model "$PENDULUM"); [ -n "$MID" ] || fail "no model id"
source "$ROOT/tests/integration/bulk.sh"
S4=$(bulk_sweep 10000); S5=$(bulk_sweep 100000)
sql "ANALYZE jobs; ANALYZE results; ANALYZE metrics" >/dev/null || fail "analyze"
if [ -z "$nowarm" ]; then   # WARM=1: the gateway makes the 10^5 view as the sweep finishes; wait for it
  warmed() { [ "$(sql "SELECT count(*) FROM reply_cache WHERE sweep_id = '$S5'")" -ge 1 ]; }
  wait_until 120 warmed || fail "the 10^5 sweep's view was not made"
  echo "the 10^5 sweep's view made by the gateway as the sweep finished (WARM=1)"
fi
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| jobs | interactive after (median of ${ROUNDS:-3}), ms | each run, ms |"
echo "|---|---|---|"
BASE=$BASE CHROMIUM=$CHROMIUM node "$ROOT/bench/web/sweep_tti.mjs" "10000:$S4" "100000:$S5" || fail "sweep_tti"
# the first opening after a gateway restart (its memory empty): a finished
# sweep's /columns from table reply_cache where the gateway keeps it (an older
# gateway without it makes the bodies again)
if [ "${RESTART:-1}" = 1 ]; then
  kill "$GW_PID"; wait "$GW_PID" 2>/dev/null
  start_gateway --www "$WWW"
  echo "after a gateway restart, one opening each:"
  ROUNDS=1 BASE=$BASE CHROMIUM=$CHROMIUM node "$ROOT/bench/web/sweep_tti.mjs" "10000:$S4" "100000:$S5" || fail "sweep_tti"
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "${HOLD:-0}" = 1 ]; then
  echo "BASE=$BASE S4=$S4 S5=$S5" >&2
  while kill -0 "$GW_PID" 2>/dev/null; do sleep 1; done
fi
