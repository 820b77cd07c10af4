#!/usr/bin/env bash
# bench/contact_examples.sh - every example with contacts (examples/*.json
# that declare "contacts"), run as users run it (build/mbs run) with contact
# deactivation on and off: wall time both ways, their ratio, mean system
# dimension and mean pairs in the system both ways, and the largest output
# difference of the pair (absolute, and relative to the channel's largest
# magnitude).  Markdown on stdout; the figures in bench/README.md come from it.
#   --quick   each example to a tenth of its t_end (at least one output interval)
# Full run: about 2 to 3 minutes on the 2-core development machine.
set -u
cd "$(dirname "$0")/.."
quick=0
[ "${1:-}" = "--quick" ] && quick=1
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
echo
echo "## Contact examples: deactivation on/off (bench/contact_examples.sh$([ $quick = 1 ] && echo ' --quick'))"
echo
echo "| example | method | pairs | t_end (s) | wall on (s) | wall off (s) | off / on | system dim. on / off | pairs in system on / off | largest diff. (abs) | largest diff. (rel) |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for f in $(grep -l '"contacts"' examples/*.json); do
  sets=()
  if [ $quick = 1 ]; then
    t=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); s=d['solver']; o=d.get('outputs',{});
t=float(s['t_end']); i=o.get('interval', t/100); i=float(i) if not isinstance(i,str) else t/100
print('%.6g' % max(t/10, i))" "$f")
    sets=(--set "solver.t_end=$t")
  fi
  ok=1
  build/mbs run "$f" "${sets[@]}" --set solver.contact_deactivation=true --quiet --out "$T/on.csv" \
      --metrics "$T/on.json" > /dev/null 2> "$T/err" || ok=0
  build/mbs run "$f" "${sets[@]}" --set solver.contact_deactivation=false --quiet --out "$T/off.csv" \
      --metrics "$T/off.json" > /dev/null 2>> "$T/err" || ok=0
  if [ $ok = 0 ]; then
    echo "| $(basename "$f" .json) | run failed: $(head -1 "$T/err") | | | | | | | | | |"
    continue
  fi
  python3 - "$f" "$T" "${sets[@]}" <<'PY'
import json, sys
sys.path.insert(0, "bench")
from output_diff import largest_difference
f, T = sys.argv[1], sys.argv[2]
on, off = json.load(open(T + "/on.json")), json.load(open(T + "/off.json"))
doc = json.load(open(f))
t_end = sys.argv[4].split("=")[1] if len(sys.argv) > 4 else doc["solver"]["t_end"]
dabs, drel = largest_difference(T + "/on.csv", T + "/off.csv")
print("| %s | %s | %d | %s | %.3f | %.3f | %.1f | %.1f / %.1f | %.1f / %.1f | %.3g | %.3g |" % (
    doc.get("name", f), on.get("contact_method", "?"), int(off["max_active_contacts"]), t_end,
    on["wall_seconds"], off["wall_seconds"], off["wall_seconds"] / max(on["wall_seconds"], 1e-9),
    on["mean_system_dimension"], off["mean_system_dimension"],
    on["mean_active_contacts"], off["mean_active_contacts"], dabs, drel))
PY
done
