#!/usr/bin/env bash
# Every sweep of examples/sweeps/ runs through the service: its "model" names
# an example (examples/<model>.json), which is stored first and its id put
# in its place (as scripts/up.sh does); the sweep runs to done on two workers
# with no failed job and a value for every response of every job.  A sweep
# that lists contact_deactivation's values is one of the contact-deactivation
# view's demonstrations: every job has its pair in /api/v1/compare/deactivation,
# deactivation took contacts out of the system (fewer active contacts on than
# off) and changed no output: every sample equal bit for bit on and off.  One
# that lists formulation's values is one of the formulation comparison's:
# every job has its pair in /api/v1/compare?option=formulation, the relative
# runs on the joint coordinates (fewer than the natural coordinates) and
# solves smaller systems.
source "$(dirname "$0")/lib.sh"
it_init example_sweeps
start_gateway
start_worker w1; start_worker w2
# A sweep that lists OPTION's values (solver.OPTION) is one of a comparison
# view's demonstrations: every job has its pair in the comparison at URL, and
# CHECKS (Python on m, the model's row of the comparison, and name) hold.
check_comparison() {
  local option=$1 url=$2 checks=$3
  [ "$(jget "\"$option\" in d.get(\"solver\", {})" < "$f")" = True ] || return 0
  get "$url" > "$IT_TMP/cmp.json"
  python3 -c "import json, sys
m = json.load(open(sys.argv[1]))['models'][0]
njobs, name = int(sys.argv[2]), sys.argv[3]
assert m['pairs'] == njobs // 2, ('pairs', m['pairs'], njobs)
$checks" "$IT_TMP/cmp.json" "$njobs" "$name" || fail "$(basename "$f"): $option comparison $(cat "$IT_TMP/cmp.json")"
  ok "$(basename "$f"): every job paired in the $option comparison"
}

n=0
for f in "$ROOT"/examples/sweeps/*.json; do
  name=$(jget 'd["model"]' < "$f")
  [ -f "$ROOT/examples/$name.json" ] || fail "$(basename "$f"): no examples/$name.json"
  MID=$(post_model "$ROOT/examples/$name.json"); [ -n "$MID" ] || fail "no model id for $name"
  spec=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["model"]=sys.argv[2]; print(json.dumps(d))' "$f" "$MID")
  SID=$(post_sweep "$spec"); [ -n "$SID" ] || fail "no sweep id for $(basename "$f")"
  wait_until 120 sweep_is "$SID" done || fail "$(basename "$f") not done: $(sweep_state "$SID")"
  njobs=$(get "/api/v1/sweeps/$SID" | jget 'd["counts"]["done"]')
  [ "$(sweep_state "$SID")" = "done $njobs 0 0 0 0" ] || fail "$(basename "$f"): $(sweep_state "$SID")"
  nresp=$(jget 'len(d["responses"])' < "$f")
  nnull=$(sql "SELECT count(*) FROM responses r JOIN jobs j ON j.id = r.job_id WHERE j.sweep_id = '$SID' AND r.value IS NULL")
  nval=$(sql "SELECT count(*) FROM responses r JOIN jobs j ON j.id = r.job_id WHERE j.sweep_id = '$SID'")
  [ "$nnull" = 0 ] && [ "$nval" = $((njobs * nresp)) ] || fail "$(basename "$f"): $nval responses ($nnull null) for $njobs jobs x $nresp"
  ok "$(basename "$f"): $njobs jobs of $name done, $nval responses, none null"
  check_comparison contact_deactivation "/api/v1/compare/deactivation?model=$MID" '
a = m["mean_active_contacts"]
assert a["deactivation_on"] < a["deactivation_off"], ("active contacts", a)
d = m["max_output_difference"]
assert d["value"] == 0 and d["pairs_compared"] == m["pairs"], d
print("%s: %d pairs, active contacts %.1f on / %.1f off, largest output difference %s" % (
    name, m["pairs"], a["deactivation_on"], a["deactivation_off"], d["value"]))'
  check_comparison formulation "/api/v1/compare?option=formulation&model=$MID" '
assert m["formulations"] == {"base": "natural", "other": "relative"}, m.get("formulations")
nat, rel = m["mean_coords_after"]["base"], m["mean_relative_coordinates"]["other"]
assert 0 < rel < nat, ("coordinates", nat, rel)
d = m["mean_system_dimension"]
assert 0 < d["other"] < d["base"], ("system dimension", d)
print("%s: %d pairs, %g natural coordinates / %g joint coordinates, system dimension %.1f / %.1f, largest output "
      "difference %s" % (name, m["pairs"], nat, rel, d["base"], d["other"], (m["max_output_difference"] or {}).get("value")))'
  n=$((n + 1))
done
[ "$n" -ge 1 ] || fail "no sweep in examples/sweeps"
