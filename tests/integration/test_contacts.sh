#!/usr/bin/env bash
# Contact deactivation through the service (seed 002's question): a sweep
# with contact_deactivation [true, false] over a contact model; the
# comparison endpoint pairs the runs, the two settings give the same outputs,
# and the runs with deactivation keep fewer pairs in the system.
source "$(dirname "$0")/lib.sh"
it_init contacts
start_gateway
start_worker w1; start_worker w2
MID=$(post_model "$ROOT/tests/integration/data/balls_on_floor.json"); [ -n "$MID" ] || fail "no model id"
SID=$(post_sweep '{"model":"'$MID'","design":{"kind":"grid"},"parameters":{"mu":{"values":[0.2,0.4]}},
  "solver":{"contact_deactivation":[true,false]}}')
wait_until 120 sweep_is "$SID" done || fail "contact sweep: $(sweep_state "$SID")"
get "/api/v1/compare/deactivation?model=$MID" | jget 'd["models"][0]' > "$IT_TMP/cmp.json"
python3 - "$IT_TMP/cmp.json" <<'PY' || fail "compare: $(cat "$IT_TMP/cmp.json")"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["pairs"] == 2, c
d = c["max_output_difference"]
# same motion both ways (measured 4e-11 m in contact_test at this tolerance)
assert d["pairs_compared"] == 2 and d["value"] < 1e-8, d
assert c["speedup"]["median"] > 0
# per-channel differences: every channel of the model, each within the bound
per = c["max_output_difference_by_channel"]
assert len(per) >= 1 and all(v is not None and v < 1e-8 for v in per.values()), per
assert max(per.values()) == d["value"], (per, d)
act = c["mean_active_contacts"]
assert act["deactivation_on"] < act["deactivation_off"] == 21, act
assert c["contact_method"] == "compliant", c
PY
on=$(sql "SELECT max(m.mean_active_contacts) FROM metrics m JOIN jobs j ON j.id = m.job_id WHERE j.sweep_id = '$SID' AND (j.solver_overrides->>'contact_deactivation')::boolean")
off=$(sql "SELECT min(m.mean_active_contacts) FROM metrics m JOIN jobs j ON j.id = m.job_id WHERE j.sweep_id = '$SID' AND NOT (j.solver_overrides->>'contact_deactivation')::boolean")
python3 -c "import sys; on, off = float(sys.argv[1]), float(sys.argv[2]); assert on < off and off == 21, (on, off)" "$on" "$off" \
  || fail "active pairs with deactivation $on, without $off"
ok "contact deactivation via the service: 2 pairs compared, same outputs, active pairs $on (on) vs $off (off) of 21"
# the BDF's step counts stored apart: singular-position steps and steps with
# slow multipliers (sql/017), within the steps taken
n=$(sql "SELECT count(*) FROM metrics m JOIN jobs j ON j.id = m.job_id WHERE j.sweep_id = '$SID' AND m.integrator = 'bdf' AND m.singular_steps IS NOT NULL AND m.slow_multiplier_steps IS NOT NULL AND m.singular_steps + m.slow_multiplier_steps <= m.steps + m.rejected_steps")
[ "$n" = 4 ] || fail "BDF step counts stored for $n of 4 jobs"

# rigid contacts (Moreau-Jean) through the service: the method and the
# complementarity problems' sizes are stored; deactivation keeps the far
# contact out of the LCP, with the same motion
RID=$(post_model "$ROOT/examples/bouncing_ball_rigid.json"); [ -n "$RID" ] || fail "no rigid model id"
RSID=$(post_sweep '{"model":"'$RID'","design":{"kind":"grid"},"parameters":{"e":{"values":[0.5,0.8]}},
  "solver":{"contact_deactivation":[true,false],"t_end":[1.0]}}')
wait_until 120 sweep_is "$RSID" done || fail "rigid sweep: $(sweep_state "$RSID")"
get "/api/v1/compare/deactivation?model=$RID" | jget 'd["models"][0]' > "$IT_TMP/rcmp.json"
python3 - "$IT_TMP/rcmp.json" <<'PY' || fail "rigid compare: $(cat "$IT_TMP/rcmp.json")"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["pairs"] == 2 and c["contact_method"] == "moreau_jean_lemke", c
assert c["max_output_difference"]["value"] < 1e-12, c
# the contact's unknowns are in the system at every step without
# deactivation, only near the floor with it
dim = c["mean_system_dimension"]
assert dim["deactivation_on"] < dim["deactivation_off"], dim
act = c["mean_active_contacts"]
assert act["deactivation_on"] < 0.5 and act["deactivation_off"] == 1, act
PY
n=$(sql "SELECT count(*) FROM metrics m JOIN jobs j ON j.id = m.job_id WHERE j.sweep_id = '$RSID' AND m.contact_method = 'moreau_jean_lemke' AND m.lcp_solves > 0 AND m.impacts > 0 AND m.max_complementarity_error < 1e-8 AND m.nonsmooth_steps > 0 AND m.nonsmooth_error_estimate > 0 AND m.kept_set_reselections = 0")
[ "$n" = 4 ] || fail "rigid metrics stored for $n of 4 jobs"
ok "rigid contacts via the service: method, LCP sizes, impacts, complementarity and the nonsmooth steps' error bound stored; on/off equal"
