#!/usr/bin/env python3
"""CPU of two builds of mbs on the explicit integrator's examples, before and
after the formulation boundary (issue 12: one DOPRI5 driver for both
formulations).  Usage: python3 bench/boundary_timing.py OLD_MBS NEW_MBS [N=5]
Each case is run N times by each build, alternated so that both meet the same
load; user + system CPU of the child, median (and range) per build.
"""
import subprocess, resource, os, statistics, sys
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
OLD, NEW = sys.argv[1], sys.argv[2]
cases = [
 ('bricard nat dopri5 1e-9', ['examples/iftomm_a04_bricard.json','--set','solver.integrator=dopri5','--set','solver.tolerance=1e-9']),
 ('n40 nat dopri5', ['examples/iftomm_a02_four_bar_n40.json','--set','solver.integrator=dopri5']),
 ('andrews nat dopri5 1e-9', ['examples/iftomm_a03_andrews.json','--set','solver.integrator=dopri5','--set','solver.tolerance=1e-9']),
 ('spatial sc rel 1e-9', ['examples/iftomm_spatial_slider_crank.json','--set','solver.formulation=relative','--set','solver.tolerance=1e-9']),
 ('flyball rel dopri5', ['examples/iftomm_a05_flyball.json','--set','solver.formulation=relative','--set','solver.integrator=dopri5']),
 ('bricard rel 1e-9', ['examples/iftomm_a04_bricard.json','--set','solver.formulation=relative','--set','solver.tolerance=1e-9']),
]
def run(b, args):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([b,'run']+args+['--out','/dev/null','--quiet'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime-r0.ru_utime)+(r1.ru_stime-r0.ru_stime)
N=int(sys.argv[3]) if len(sys.argv)>3 else 5
for name,args in cases:
    o=[];n=[]
    for i in range(N):
        o.append(run(OLD,args)); n.append(run(NEW,args))
    mo,mn=statistics.median(o),statistics.median(n)
    print(f'{name:28s} old {mo:.3f} s  new {mn:.3f} s  new/old {mn/mo:.3f}   (old {min(o):.3f}-{max(o):.3f}, new {min(n):.3f}-{max(n):.3f})', flush=True)
