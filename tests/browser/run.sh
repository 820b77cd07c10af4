#!/usr/bin/env bash
# tests/browser/run.sh - the front end in a real browser: Debian's chromium,
# driven by playwright-core from web/node_modules, run by `node --test`
# against the real gateway (serving build/www), PostgreSQL and workers.
#
# Set-up (helpers of tests/integration/lib.sh: free ports, a private
# PostgreSQL cluster or the suite's, every process killed on exit):
#   - the pendulum model and a small sweep (2 x 4 grid, two responses) that
#     the workers run to done;
#   - paired sweeps (contact_deactivation [true, false]) of the pendulum and
#     of examples/bouncing_ball.json, run to done;
#   - one job of examples/iftomm_spatial_slider_crank.json (the 3-D view);
#   - the workers are stopped, then a "control" sweep that stays queued (the
#     pause / resume / cancel test acts on it);
#   - a "big" sweep of $BIG_JOBS jobs (default 100000) with results and
#     metrics inserted in bulk by SQL (some failed, some with warnings).
# Then every tests/browser/*.test.mjs, with the ids in the environment.
# HOLD=1 keeps the service up afterwards for manual work (Ctrl-C stops it).
source "$(dirname "$0")/../integration/lib.sh"
BIG_JOBS=${BIG_JOBS:-100000}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || fail "no chromium at $CHROMIUM (scripts/deps.sh installs Debian's)"
[ -f "$ROOT/build/www/index.html" ] || fail "build/www is not built (make web)"
[ -d "$ROOT/web/node_modules/playwright-core" ] || fail "web/node_modules has no playwright-core (make web runs npm ci)"
it_init web
start_gateway --www "$ROOT/build/www"
start_worker w1; W1=$WK_PID
start_worker w2; W2=$WK_PID
MID=$(post_model "$PENDULUM"); [ -n "$MID" ] || fail "no model id"

SMALL=$(post_sweep '{"model":"'$MID'","name":"small grid","design":{"kind":"grid","seed":1},
  "parameters":{"L":{"min":0.5,"max":2,"levels":4},"m":{"values":[1,3]}},
  "responses":[{"name":"xmin","channel":"x","reduce":"min"},{"name":"ymax","channel":"y","reduce":"max"}]}')
wait_until 90 sweep_is "$SMALL" done || fail "small sweep: $(sweep_state "$SMALL")"
ok "small sweep $SMALL done"
# paired runs (contact_deactivation on and off) of two models, for the
# comparison view: the pendulum, and the bouncing ball (real contacts)
BALL=$(post_model "$ROOT/examples/bouncing_ball.json"); [ -n "$BALL" ] || fail "no ball model id"
PAIRS=$(post_sweep '{"model":"'$MID'","name":"pairs","design":{"kind":"grid"},"parameters":{"L":{"values":[0.8,1.2]}},
  "solver":{"contact_deactivation":[true,false]}}')
BPAIRS=$(post_sweep '{"model":"'$BALL'","name":"ball pairs","design":{"kind":"grid"},"parameters":{"e":{"values":[0.7,0.9]}},
  "solver":{"contact_deactivation":[true,false]}}')
# paired formulations of the pendulum (dopri5 both ways), for the
# comparison view's option selector (issue 12)
FPAIRS=$(post_sweep '{"model":"'$MID'","name":"formulation pairs","design":{"kind":"grid"},"parameters":{"L":{"values":[0.8,1.2]}},
  "solver":{"formulation":["natural","relative"],"integrator":"dopri5"}}')
# a spatial mechanism, for the three.js animation (one job, 1 s of its run)
SPMID=$(post_model "$ROOT/examples/iftomm_spatial_slider_crank.json"); [ -n "$SPMID" ] || fail "no spatial model id"
SPATIAL=$(post_sweep '{"model":"'$SPMID'","name":"spatial","design":{"kind":"list","rows":[{}]},"solver":{"t_end":1}}')
wait_until 120 sweep_is "$SPATIAL" done || fail "spatial sweep: $(sweep_state "$SPATIAL")"
wait_until 120 sweep_is "$PAIRS" done || fail "pairs sweep: $(sweep_state "$PAIRS")"
wait_until 120 sweep_is "$BPAIRS" done || fail "ball pairs sweep: $(sweep_state "$BPAIRS")"
wait_until 120 sweep_is "$FPAIRS" done || fail "formulation pairs sweep: $(sweep_state "$FPAIRS")"
ok "paired sweeps $PAIRS $BPAIRS $FPAIRS done"

# no worker from here on: the control sweep stays queued
kill -TERM "$W1" "$W2"; wait "$W1" "$W2" 2>/dev/null
CONTROL=$(post_sweep '{"model":"'$MID'","name":"control me","design":{"kind":"grid"},"parameters":{"L":{"min":0.9,"max":1.1,"levels":5}}}')

# the big sweep, in bulk (tests/integration/bulk.sh): 3 parameters, 2
# responses, metrics; every 97th job failed, every 13th with an accuracy
# warning; paused while written, so neither the dispatcher nor the gateway's
# warm.c touches it half-written
source "$(dirname "$0")/../integration/bulk.sh"
BIG=$(bulk_sweep "$BIG_JOBS")
[ -n "$BIG" ] || fail "bulk sweep"
sql "ANALYZE jobs; ANALYZE results; ANALYZE metrics" || fail "analyze"   # as autovacuum would after a bulk load
ok "bulk sweep $BIG with $BIG_JOBS jobs"

export BASE TOKEN SMALL CONTROL BIG BIG_JOBS CHROMIUM MID ZMQ BALL SPATIAL
export WORKER=$DEVBUILD/worker WORKER_LOG=$IT_TMP/worker-live.log
export SHOTS=${SHOTS:-$IT_TMP/shots}
if [ "${HOLD:-0}" = 1 ]; then
  echo "BASE=$BASE TOKEN=$TOKEN SMALL=$SMALL CONTROL=$CONTROL BIG=$BIG MID=$MID BALL=$BALL SPATIAL=$SPATIAL BIG_JOBS=$BIG_JOBS ZMQ=$ZMQ WORKER=$WORKER"
  while kill -0 "$GW_PID" 2>/dev/null; do sleep 1; done
  exit 0
fi
cd "$ROOT"
# BROWSER_TESTS="contacts forces" runs only those files (while working on them)
tests=()
for t in tests/browser/*.test.mjs; do
  n=$(basename "$t" .test.mjs)
  [ -z "${BROWSER_TESTS:-}" ] || [[ " $BROWSER_TESTS " == *" $n "* ]] && tests+=("$t")
done
[ ${#tests[@]} -gt 0 ] || fail "no browser test matches BROWSER_TESTS=$BROWSER_TESTS"
for t in "${tests[@]}"; do
  timeout 900 node --test "$t" || fail "browser test $t"
done
ok "browser tests"
