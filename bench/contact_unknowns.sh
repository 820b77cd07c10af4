#!/usr/bin/env bash
# bench/contact_unknowns.sh - solver.contact_force_unknowns (the compliant
# contacts' force components as unknowns of the BDF Newton matrix, ADAMS'
# form, seed 002's baseline): the roller chain drive and the 27-ball box run
# as users run them (build/mbs run) with the option, contact deactivation on
# and off: wall time both ways, their ratio, mean system dimension both ways,
# mean pairs in the system, and the largest output difference of the pair
# (relative to the channel's largest magnitude).  A last column gives the
# wall time of the default form (force elements, deactivation on) for scale.
# Markdown on stdout; the figures in bench/README.md come from it.
#   --quick   each example to a tenth of its t_end
# Full run: about 3 minutes on the 2-core development machine.
set -u
cd "$(dirname "$0")/.."
quick=0
[ "${1:-}" = "--quick" ] && quick=1
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
echo
echo "## Contact force unknowns: deactivation on/off (bench/contact_unknowns.sh$([ $quick = 1 ] && echo ' --quick'))"
echo
echo "| example | pairs | t_end (s) | wall on (s) | wall off (s) | off / on | system dim. on / off | pairs in system on / off | largest diff. (rel) | force elements, on (s) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for f in examples/roller_chain_drive.json examples/balls_in_box.json; do
  sets=()
  if [ $quick = 1 ]; then
    t=$(python3 -c "import json,sys; print('%.6g' % (float(json.load(open(sys.argv[1]))['solver']['t_end']) / 10))" "$f")
    sets=(--set "solver.t_end=$t")
  fi
  ok=1
  for mode in on off; do
    build/mbs run "$f" "${sets[@]}" --set solver.contact_force_unknowns=true \
        --set solver.contact_deactivation=$([ $mode = on ] && echo true || echo false) --quiet \
        --out "$T/$mode.csv" --metrics "$T/$mode.json" > /dev/null 2>> "$T/err" || ok=0
  done
  build/mbs run "$f" "${sets[@]}" --quiet --out "$T/fe.csv" --metrics "$T/fe.json" > /dev/null 2>> "$T/err" || ok=0
  if [ $ok = 0 ]; then
    echo "| $(basename "$f" .json) | run failed: $(head -1 "$T/err") | | | | | | | | |"
    continue
  fi
  python3 - "$f" "$T" "${sets[@]}" <<'PY'
import json, sys
sys.path.insert(0, "bench")
from output_diff import largest_difference
f, T = sys.argv[1], sys.argv[2]
on, off, fe = (json.load(open(T + "/%s.json" % k)) for k in ("on", "off", "fe"))
doc = json.load(open(f))
t_end = sys.argv[4].split("=")[1] if len(sys.argv) > 4 else doc["solver"]["t_end"]
drel = largest_difference(T + "/on.csv", T + "/off.csv")[1]
print("| %s | %d | %s | %.3f | %.3f | %.1f | %.1f / %.1f | %.1f / %.1f | %.3g | %.3f |" % (
    doc.get("name", f), int(off["max_active_contacts"]), t_end, on["wall_seconds"], off["wall_seconds"],
    off["wall_seconds"] / max(on["wall_seconds"], 1e-9), on["mean_system_dimension"], off["mean_system_dimension"],
    on["mean_active_contacts"], off["mean_active_contacts"], drel, fe["wall_seconds"]))
PY
done
