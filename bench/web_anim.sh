#!/usr/bin/env bash
# bench/web_anim.sh - the animation's frame rate (issue 10: at least 30 frames
# per second for the 100-ball box and the roller chain drive) in headless
# Chromium.  Starts PostgreSQL, the gateway (serving build/www) and one
# worker on free ports (tests/integration/lib.sh, stopped on exit), runs one
# job of each model (the 100-ball box cut to 0.2 s of its run: the drawing's
# cost does not depend on the run's length), then bench/web/anim_fps.mjs.
# Prints a markdown table.  Needs build/gateway, build/worker, build/www.
source "$(dirname "$0")/../tests/integration/lib.sh"
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || fail "no chromium at $CHROMIUM (bash scripts/deps.sh --browser)"
WWW=${WWW:-$ROOT/build/www}   # another bundle for a comparison (e.g. an older commit's, built elsewhere)
[ -f "$WWW/index.html" ] || fail "$WWW is not built (make web)"
it_init webbench
start_gateway --www "$WWW"
start_worker w1
jobs=()
for spec in "balls_in_box_100:0.2" "roller_chain_drive:" "iftomm_a02_four_bar_n40:"; do
  name=${spec%%:*} tend=${spec#*:}
  mid=$(post_model "$ROOT/examples/$name.json"); [ -n "$mid" ] || fail "model $name"
  solver=$([ -n "$tend" ] && echo ',"solver":{"t_end":'"$tend"'}')
  sid=$(post_sweep '{"model":"'$mid'","name":"'$name'","design":{"kind":"list","rows":[{}]}'"$solver"'}')
  wait_until 600 sweep_is "$sid" done || fail "$name: $(sweep_state "$sid")"
  jobs+=("$name:$(sql "SELECT id FROM jobs WHERE sweep_id = '$sid'")")
done
echo "| job | bodies | drawing | stored frames | frames drawn per s, animation alone | with the default plots |"
echo "|---|---|---|---|---|---|"
BASE=$BASE CHROMIUM=$CHROMIUM node "$ROOT/bench/web/anim_fps.mjs" "${jobs[@]}" || fail "anim_fps"
# HOLD=1 keeps the service up afterwards, for profiling by hand (Ctrl-C stops it)
if [ "${HOLD:-0}" = 1 ]; then
  echo "BASE=$BASE jobs: ${jobs[*]}" >&2
  while kill -0 "$GW_PID" 2>/dev/null; do sleep 1; done
fi
