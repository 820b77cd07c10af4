#!/usr/bin/env bash
# bench/run.sh - `make bench`: print the benchmark figures (markdown).  The
# figures recorded in bench/README.md come from this script.
set -u
cd "$(dirname "$0")/.."
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%Y-%m-%d)"
build/bench/solver_bench "$@"
# the same solver benchmarks under the reference BLAS and OpenBLAS serial (bench/README.md, BLAS)
if [ "${1:-}" != "--quick" ]; then bash bench/blas.sh "$@"; fi
if dpkg -s libmujoco-dev >/dev/null 2>&1; then make -s build/bench/mujoco_fourbar && build/bench/mujoco_fourbar; else echo "MuJoCo side-by-side skipped: libmujoco-dev not installed (bash scripts/deps.sh --bench)"; fi
if [ -f /usr/include/ida/ida.h ]; then make -s build/bench/ida_compare && build/bench/ida_compare $([ "${1:-}" = "--quick" ] && echo --quick); else echo "SUNDIALS IDA side-by-side skipped: libsundials-dev not installed (bash scripts/deps.sh --bench)"; fi
if [ -f bench/service_bench.sh ] && [ "${1:-}" != "--target" ]; then
  bash bench/service_bench.sh
  # dispatch capacity of one gateway with echo workers (benchmark tool), and end to end (issue 11)
  bash bench/dispatch_bench.sh
  # issue 11: the dispatcher's longest pause while a 10^5-job sweep's summary is made (bench/README.md,
  # "The sweeps list's poll"); the gateway's memory before and after the hostile battery (section 5);
  # two gateways behind the proxy, one killed under load (section 7)
  bash bench/summary_stall.sh
  bash bench/gateway_memory.sh
  if command -v haproxy >/dev/null && command -v wrk >/dev/null; then bash bench/proxy_bench.sh; else echo "proxy figures skipped: haproxy or wrk not installed (scripts/deps.sh)"; fi
fi
# issue 11: `build/mbs check` of long chains, up to 10,000 bodies with --quick (bench/README.md, section 5)
if [ "${1:-}" != "--target" ]; then bash bench/check_scaling.sh $([ "${1:-}" = "--quick" ] && echo 1000 10000); fi
# the web front end's animation frame rate (bench/README.md, Web front end); needs Debian's chromium
if [ "${1:-}" != "--target" ]; then
  if [ -x /usr/bin/chromium ] && [ -f build/www/index.html ]; then bash bench/web_anim.sh; bash bench/web_sweep.sh; else echo "web front end figures skipped: no /usr/bin/chromium or build/www"; fi
fi
if [ "${1:-}" != "--target" ]; then bash bench/contact_scaling.sh; fi
if [ "${1:-}" != "--target" ]; then bash bench/rigid_scaling.sh; fi
# cost per step and ball of both scenes of issue 14, N = 25 .. 400 (linear growth; MBS_OLD=<build> beside),
# the box beside MuJoCo's PGS and CG where libmujoco-dev is installed
if [ "${1:-}" != "--target" ] && [ "${1:-}" != "--quick" ]; then
  CONTACT_LINEAR_MUJOCO=$(dpkg -s libmujoco-dev >/dev/null 2>&1 && echo PGS,CG) bash bench/contact_linear.sh
fi
# the dc_motor element against its mechanical twin (issue 13)
if [ "${1:-}" != "--target" ]; then python3 bench/actuator_cost.py; fi
# spatial open chains of 10, 50, 200 rods: both formulations beside MuJoCo 2.2 in one run (issue 12)
if [ "${1:-}" != "--target" ]; then
  if dpkg -s libmujoco-dev >/dev/null 2>&1; then make -s build/bench/mujoco_chain && python3 bench/relative_chain.py $([ "${1:-}" = "--quick" ] && echo 10); else echo "chains beside MuJoCo skipped: libmujoco-dev not installed (bash scripts/deps.sh --bench)"; fi
fi
# every example in both formulations side by side (issue 12; bench/README.md)
if [ "${1:-}" != "--target" ]; then python3 bench/formulations.py $([ "${1:-}" = "--quick" ] && echo --quick); fi
# the relative formulation's BDF beside its dopri5 and natural bdf (helper rel12d); the chains only in a full run
# (relative bdf is capped at 600 s there)
if [ "${1:-}" != "--target" ]; then python3 bench/relative_bdf.py nonstiff stiff $([ "${1:-}" != "--quick" ] && echo chains); fi
# the 100-ball box beside MuJoCo 2.2 in one run (issue 14)
if [ "${1:-}" != "--target" ]; then bash bench/contact_mujoco.sh; fi
# how far the 100-ball box's outputs move with lcp_tolerance (its chosen 1e-4 against 1e-7 .. 1e-3)
if [ "${1:-}" != "--target" ] && [ "${1:-}" != "--quick" ]; then python3 bench/lcp_tolerance.py; fi
# our contact solver beside Siconos numerics' fc3d NSGS on the 100-ball box's local problems (issue 14)
if [ "${1:-}" != "--target" ]; then
  if [ -f /usr/include/siconos/numerics/fc3d_Solvers.h ]; then make -s build/bench/siconos_fc3d && build/bench/siconos_fc3d; else echo "Siconos side-by-side skipped: libsiconos-numerics-dev not installed (bash scripts/deps.sh --bench)"; fi
fi
if [ "${1:-}" != "--target" ]; then bash bench/contact_examples.sh $([ "${1:-}" = "--quick" ] && echo --quick); fi
if [ "${1:-}" != "--target" ]; then bash bench/contact_unknowns.sh $([ "${1:-}" = "--quick" ] && echo --quick); fi
# work-precision diagram (issue 9): error against tolerance and CPU time, every error-controlled integrator;
# --quick: three tolerances, one run each, SVG under build/bench/ (the committed bench/work_precision.svg is the full run)
if [ "${1:-}" != "--target" ]; then
  if [ "${1:-}" = "--quick" ]; then wp_args=--quick; wp_svg=build/bench/work_precision.svg; else wp_args=; wp_svg=bench/work_precision.svg; fi
  build/bench/work_precision $wp_args --csv build/bench/work_precision.csv && python3 bench/work_precision_plot.py build/bench/work_precision.csv "$wp_svg"
fi
