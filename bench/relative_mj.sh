#!/bin/bash
# bench/relative_mj.sh - Moreau-Jean on the three rigid-contact examples that name it, natural
# (as written, and without contact deactivation) and relative coordinates, alternated, 3 runs each:
# median cpu_seconds of the metrics, steps, LCP dimension, impacts, penetration (helper relmj12g).
cd "$(dirname "$0")/.."
uptime
for ex in bouncing_ball_rigid flores_slider_crank_impact balls_in_box_100; do
  for rep in 1 2 3; do
    for cfg in natural natural_nodeact relative; do
      case $cfg in
        natural) s="";;
        natural_nodeact) s="--set solver.contact_deactivation=false";;
        relative) s="--set solver.formulation=relative";;
      esac
      ./build/mbs run examples/$ex.json $s --quiet --out /dev/null --metrics ${TMPDIR:-/tmp}/bm_${ex}_${cfg}_$rep.json 2>/dev/null
    done
  done
  for cfg in natural natural_nodeact relative; do
    python3 - $ex $cfg "${TMPDIR:-/tmp}" <<'PY'
import json,sys,statistics
ex,cfg,tmp=sys.argv[1:]
ms=[json.load(open('%s/bm_%s_%s_%d.json'%(tmp,ex,cfg,r))) for r in (1,2,3)]
m=ms[0]
print('%-28s %-16s steps %6d  coords %4s  cpu median %.3f s (%s)  lcp %s mean dim %.1f  impacts %d  max_pen %.2e' % (ex,cfg,m['steps'], m.get('relative_coordinates','-'), statistics.median([x['cpu_seconds'] for x in ms]), ', '.join('%.3f'%x['cpu_seconds'] for x in ms), m.get('contact_method'), m.get('mean_lcp_dimension',0), m.get('impacts',0), m.get('max_penetration',0)))
PY
  done
done
uptime
