#!/usr/bin/env bash
# Paired runs over solver.formulation and solver.integrator (issue 12): a
# sweep of examples/pendulum.json crossing formulation [natural, relative]
# with integrator [bdf, dopri5] finishes, every job done (relative runs
# with bdf too since helper rel12d); each
# job's metrics record its formulation; /compare?option=formulation and
# option=integrator pair the runs, and the two formulations' outputs agree
# within 100 x the tolerance of each channel's scale; bad options and values
# are refused; the timing verdict of /compare (CPU speed-ups, too short to
# time, no clear difference, nothing to deactivate for a model without
# contact pairs).  (/compare?option=contact_deactivation against
# /compare/deactivation: test_sweep.sh.)
source "$(dirname "$0")/lib.sh"
it_init compare
start_gateway
start_worker w1
MID=$(post_model "$ROOT/examples/pendulum.json"); [ -n "$MID" ] || fail "no model id"

# unknown values of the paired options: 422 with the option's pointer
api POST /api/v1/sweeps '{"model":"'$MID'","design":{"kind":"grid"},"parameters":{},
  "solver":{"formulation":["natural","joint"]}}'
[ "$STATUS" = 422 ] && echo "$BODY" | grep -q '"/solver/formulation/1"' || fail "formulation joint: $STATUS $BODY"
api POST /api/v1/sweeps '{"model":"'$MID'","design":{"kind":"grid"},"parameters":{},
  "solver":{"integrator":["bdf","rk4"]}}'
[ "$STATUS" = 422 ] && echo "$BODY" | grep -q '"/solver/integrator/1"' || fail "integrator rk4: $STATUS $BODY"
ok "unknown formulation and integrator values: 422 with /solver/formulation/1, /solver/integrator/1"

# 2 lengths x 2 formulations x 2 integrators = 8 jobs
TOL=1e-6
SID=$(post_sweep '{"model":"'$MID'","name":"formulations","design":{"kind":"grid"},
  "parameters":{"L":{"values":[0.8,1.2]}},
  "solver":{"formulation":["natural","relative"],"integrator":["bdf","dopri5"],"tolerance":'$TOL'}}')
[ -n "$SID" ] || fail "no sweep id"
finished() { [ "$(sql "SELECT count(*) FROM jobs WHERE sweep_id = '$SID' AND status IN ('done','failed')")" = 8 ]; }
wait_until 60 finished || fail "sweep not finished: $(sweep_state "$SID")"
[ "$(count "$SID" done)" = 8 ] || fail "states: $(sweep_state "$SID")"
# each job's metrics name its formulation, relative ones their joint coordinates
[ "$(sql "SELECT count(*) FROM jobs j JOIN metrics m ON m.job_id = j.id
          WHERE m.formulation = j.solver_overrides->>'formulation'
            AND m.integrator = j.solver_overrides->>'integrator'
            AND (m.formulation = 'natural') = (m.relative_coordinates IS NULL)")" = 8 ] \
  || fail "metrics formulation: $(sql "SELECT j.solver_overrides, m.formulation, m.relative_coordinates FROM jobs j JOIN metrics m ON m.job_id = j.id")"
[ "$(sql "SELECT DISTINCT relative_coordinates FROM metrics WHERE formulation = 'relative'")" = 1 ] || fail "relative coordinates"
ok "8 jobs done (relative with bdf and dopri5); metrics carry the formulation and integrator"

# formulation: natural against relative, with bdf and with dopri5
get "/api/v1/compare?option=formulation&model=$MID&speedups=1" | jget 'd["models"][0]' > "$IT_TMP/form.json"
get "/api/v1/jobs/$(sql "SELECT id FROM jobs WHERE sweep_id = '$SID' AND parameters->>'L' = '1.2'
  AND solver_overrides->>'formulation' = 'natural' AND solver_overrides->>'integrator' = 'dopri5'")/result?format=csv" > "$IT_TMP/nat.csv"
python3 - "$IT_TMP/form.json" "$IT_TMP/nat.csv" "$TOL" <<'PY' || fail "compare formulation: $(cat "$IT_TMP/form.json")"
import csv, json, sys
c = json.load(open(sys.argv[1])); tol = float(sys.argv[3])
assert c["option"] == "formulation" and c["base"] == "natural" and c["other"] == "relative"
assert c["pairs"] == 4, c["pairs"]
assert c["formulations"] == {"base": "natural", "other": "relative"}, c["formulations"]
assert c["integrators"] == {"base": "bdf,dopri5", "other": "bdf,dopri5"}, c["integrators"]
assert len(c["speedups"]) == 4 and c["speedup"]["min"] <= c["speedup"]["median"] <= c["speedup"]["max"]
assert c["mean_relative_coordinates"]["other"] == 1 and c["mean_relative_coordinates"]["base"] is None
assert c["mean_steps"]["base"] > 0 and c["mean_steps"]["other"] > 0
assert c["mean_system_dimension"]["base"] > 0 and c["mean_system_dimension"]["other"] > 0
runs = c["runs"]; assert len(runs) == 4
for r in runs:
    assert r["base"]["formulation"] == "natural" and r["other"]["formulation"] == "relative", r
    assert r["base"]["integrator"] == r["other"]["integrator"], r
    assert r["base"]["job"] != r["other"]["job"] and r["speedup"] > 0 and r["max_output_difference"] >= 0
    assert r["parameters"]["L"] in (0.8, 1.2)
# the bound: relative_test finds the two formulations within 100 x tol of each
# channel's scale; the scale here is max(range, max |y|) of the natural run at
# L = 1.2 (the energy is nearly constant: its range is no scale), the largest
# L bounding both lengths' ranges.  cv (the constraint violation, 0 in
# relative coordinates) is a diagnostic within the tolerance, not a motion.
rows = list(csv.reader(open(sys.argv[2]))); hdr = rows[0]
cols = {h: [float(r[i]) for r in rows[1:]] for i, h in enumerate(hdr)}
by = c["max_output_difference_by_channel"]
assert set(by) == set(hdr[1:]), by
worst = 0
for ch, d in by.items():
    y = cols[ch]; scale = max(max(y) - min(y), max(abs(v) for v in y))
    bound = tol if ch == "cv" else 100 * tol * scale
    assert d <= bound, (ch, d, bound)
    if ch != "cv": worst = max(worst, d / scale / tol)
md = c["max_output_difference"]
assert md["pairs_compared"] == 4 and md["value"] == max(by.values()), md
print("largest difference %.3g x tol of the channel's scale" % worst, file=sys.stderr)
PY
ok "compare formulation: 4 pairs (bdf and dopri5), outputs within 100 x tol of each channel's scale"

# integrator: bdf against dopri5, in each formulation
get "/api/v1/compare?option=integrator&model=$MID&base=bdf&other=dopri5" | jget 'd["models"][0]' > "$IT_TMP/int.json"
python3 - "$IT_TMP/int.json" <<'PY' || fail "compare integrator: $(cat "$IT_TMP/int.json")"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["pairs"] == 4 and c["integrators"] == {"base": "bdf", "other": "dopri5"}, c
assert c["formulations"] == {"base": "natural,relative", "other": "natural,relative"}, c["formulations"]
assert c["mean_newton_iterations"]["base"] > 0 and c["mean_steps"]["base"] > 0 and c["mean_steps"]["other"] > 0
assert c["mean_jacobian_evaluations"]["base"] > 0 and c["mean_jacobian_evaluations"]["other"] == 0
assert all(r["base"]["integrator"] == "bdf" and r["other"]["integrator"] == "dopri5" for r in c["runs"])
PY
# the other way round: the speed-ups invert
get "/api/v1/compare?option=integrator&model=$MID&base=dopri5&other=bdf" | jget 'd["models"][0]' > "$IT_TMP/int2.json"
python3 - "$IT_TMP/int.json" "$IT_TMP/int2.json" <<'PY' || fail "integrator swapped"
import json, sys, math
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert math.isclose(a["speedup"]["min"] * b["speedup"]["max"], 1, rel_tol=1e-12)
assert a["max_output_difference"]["value"] == b["max_output_difference"]["value"]
PY
ok "compare integrator: 4 pairs bdf vs dopri5 (Jacobians bdf only); swapped sides invert the speed-ups"

# timing (issue 10): the CPU speed-ups equal the runs' CPU times, and the
# verdict follows its rule, recomputed here from the pairs listed in runs:
# too_short when the shorter side's median time is under min_seconds (both
# sides of the boundary), no_clear_difference when the quartiles straddle 1
# or the median is within 5 % of 1
pyq='
import json, sys
def quart(v, p):          # percentile_cont: linear between the sorted values
    v = sorted(v); x = p * (len(v) - 1); i = int(x)
    return v[i] if i + 1 >= len(v) else v[i] + (x - i) * (v[i + 1] - v[i])
def check(c, min_s):
    t = c["timing"]; runs = c["runs"]
    assert t["basis"] == "cpu_seconds" and t["min_seconds"] == min_s and t["noise"] == 0.05, t
    s = [r["base"]["cpu_seconds"] / r["other"]["cpu_seconds"] for r in runs]
    assert sorted(s) == c["speedups_cpu"] and [r["speedup_cpu"] for r in runs] == s, (s, c["speedups_cpu"])
    q = [quart(s, p) for p in (0.25, 0.5, 0.75)]
    sc = c["speedup_cpu"]
    for a, b in zip(q, (sc["q1"], sc["median"], sc["q3"])): assert abs(a - b) <= 1e-12 * abs(a), (q, sc)
    assert (sc["min"], sc["max"]) == (min(s), max(s))
    med = {k: quart([r[k]["cpu_seconds"] for r in runs], 0.5) for k in ("base", "other")}
    for k in med: assert abs(med[k] - t["median_seconds"][k]) <= 1e-12 * med[k], (med, t)
    if c.get("option") == "contact_deactivation" and c["declared_pairs"] == 0: want = "nothing_to_deactivate"
    elif min(med.values()) < min_s: want = "too_short"
    elif q[0] < 1 < q[2] or abs(q[1] - 1) < 0.05: want = "no_clear_difference"
    else: want = "measured"
    assert t["verdict"] == want and t["reason"], (t, want, q, med)
    return min(med.values()), want
'
get "/api/v1/compare?option=formulation&model=$MID&speedups=1&min_seconds=0" | jget 'd["models"][0]' > "$IT_TMP/t0.json"
SHORT=$(python3 -c "$pyq
c = json.load(open(sys.argv[1])); short, v = check(c, 0)
assert v != 'too_short', v
print(repr(short))" "$IT_TMP/t0.json") || fail "timing, min_seconds 0: $(cat "$IT_TMP/t0.json")"
# just above and just below the shorter side's median CPU time
for f in 1.01 0.99; do
  MS=$(python3 -c "print(repr($SHORT * $f))")
  get "/api/v1/compare?option=formulation&model=$MID&speedups=1&min_seconds=$MS" | jget 'd["models"][0]' > "$IT_TMP/t.json"
  python3 -c "$pyq
c = json.load(open(sys.argv[1])); short, v = check(c, float(sys.argv[2]))
assert (v == 'too_short') == (sys.argv[3] == '1.01'), (v, sys.argv[3])" "$IT_TMP/t.json" "$MS" "$f" \
    || fail "timing, min_seconds $MS: $(cat "$IT_TMP/t.json")"
done
# the default threshold, 5 ms (these runs take a few ms: either verdict, by the rule)
get "/api/v1/compare?option=formulation&model=$MID&speedups=1" | jget 'd["models"][0]' > "$IT_TMP/t.json"
python3 -c "$pyq
c = json.load(open(sys.argv[1])); check(c, 0.005)" "$IT_TMP/t.json" \
  || fail "timing, default: $(cat "$IT_TMP/t.json")"
for q in "min_seconds=-1" "min_seconds=abc" "min_seconds=1e9" "min_seconds="; do
  [ "$(curl -s -o "$IT_TMP/body" -w '%{http_code}' "$BASE/api/v1/compare?option=formulation&model=$MID&$q")" = 400 ] \
    && grep -q '"pointer": *"min_seconds"' "$IT_TMP/body" || fail "compare?$q: $(cat "$IT_TMP/body")"
done
ok "timing: CPU speed-ups equal the runs' CPU times; too_short flips at the shorter side's median ($SHORT s); bad min_seconds 400"

# contact deactivation: the pendulum declares no contact pair (nothing to
# deactivate, whatever its times), the bouncing ball one
BID=$(post_model "$ROOT/examples/bouncing_ball.json"); [ -n "$BID" ] || fail "no ball model id"
DS=$(post_sweep '{"model":"'$MID'","name":"deact pendulum","design":{"kind":"grid"},"parameters":{"L":{"values":[0.8,1.2]}},
  "solver":{"contact_deactivation":[true,false]}}')
DB=$(post_sweep '{"model":"'$BID'","name":"deact ball","design":{"kind":"grid"},"parameters":{"e":{"values":[0.7,0.9]}},
  "solver":{"contact_deactivation":[true,false]}}')
wait_until 90 sweep_is "$DS" done || fail "pendulum pairs: $(sweep_state "$DS")"
wait_until 90 sweep_is "$DB" done || fail "ball pairs: $(sweep_state "$DB")"
get "/api/v1/compare?option=contact_deactivation&model=$MID&model=$BID&speedups=1&min_seconds=0" > "$IT_TMP/d.json"
python3 -c "$pyq
p, b = json.load(open(sys.argv[1]))['models']
assert p['declared_pairs'] == 0 and p['pairs'] == 2 and check(p, 0)[1] == 'nothing_to_deactivate', p['timing']
assert b['declared_pairs'] == 1 and b['pairs'] == 2 and check(b, 0)[1] != 'nothing_to_deactivate', b['timing']" "$IT_TMP/d.json" \
  || fail "deactivation timing: $(cat "$IT_TMP/d.json")"
# /compare/deactivation keeps its shape: no timing, no CPU speed-up
get "/api/v1/compare/deactivation?model=$BID&speedups=1" | jget '"|".join(k for k in ("timing", "speedup_cpu", "speedups_cpu") if k in d["models"][0])' > "$IT_TMP/k"
[ ! -s "$IT_TMP/k" ] || [ "$(cat "$IT_TMP/k")" = "" ] || fail "compare/deactivation has $(cat "$IT_TMP/k")"
ok "timing: the pendulum (no contact pair) has nothing to deactivate, the ball (1 pair) is timed; compare/deactivation unchanged"

# refusals: no option, unknown option, a value the option does not take, equal sides
code() { curl -s -o "$IT_TMP/body" -w '%{http_code}' "$BASE$1"; }
for q in "model=$MID" "option=tolerance&model=$MID" "option=formulation&other=joint&model=$MID" \
         "option=contact_deactivation&base=yes&model=$MID" "option=integrator&base=bdf&other=bdf&model=$MID" \
         "option=formulation"; do
  [ "$(code "/api/v1/compare?$q")" = 400 ] || fail "compare?$q: $(cat "$IT_TMP/body")"
done
[ "$(code "/api/v1/compare?option=formulation&other=joint&model=$MID")" = 400 ] && grep -q '"pointer": *"other"' "$IT_TMP/body" \
  || fail "pointer of a bad value: $(cat "$IT_TMP/body")"
[ "$(code "/api/v1/compare?option=formulation&model=0000000000000000")" = 200 ] \
  && [ "$(jget 'd["models"][0]["pairs"]' < "$IT_TMP/body")" = 0 ] || fail "unknown model: $(cat "$IT_TMP/body")"
ok "compare refuses a missing or unknown option, a bad value, equal sides (400); no pairs: 0"
