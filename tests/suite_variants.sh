#!/usr/bin/env bash
# tests/suite_variants.sh - the same answers whatever BLAS/LAPACK and compiler
# flags (issue 9 item 3): reference_test (every example against its reference
# values) and robustness_test (N-four-bar N = 2 and 40, Bricard, flyball,
# every integrator, initial conditions perturbed by 1e-12 with 3 seeds) run
#
#   refblas   build/tests     reference BLAS + LAPACK (libblas3, liblapack3)
#   openblas  build/tests     OpenBLAS serial (libopenblas0-serial), OPENBLAS_NUM_THREADS=1
#   o3        build/o3/tests-O3 -march=native -ffp-contract=fast (mk/variants.mk),
#                             reference BLAS + LAPACK
#
# The library is chosen by LD_LIBRARY_PATH (whatever the alternatives system
# selects), and each variant proves what it ran with: the dynamic loader's
# own record of the libraries it initialised (LD_DEBUG=libs) must name the
# variant's libblas.so.3 and liblapack.so.3, robustness_test's report of the
# libraries that define dgemv_ and dgetrf_ in the process must agree, and no
# other BLAS may be mapped (refblas: no libopenblas).  Every compilation unit
# of the o3 binaries must carry -O3 and -ffp-contract=fast in its DWARF
# producer string (-march=native appears there expanded, e.g. -march=znver3).
#
# Time: measured with the machine loaded by other jobs (load average 7 on 2
# cores): 25 s for reference_test and 170 to 220 s for robustness_test per
# variant, 11 min for the suite; most of it is dopri5 on the stiff flyball
# (96k stability-limited steps per seed).  --quick runs robustness_test with
# one seed (a third of that).
set -u
cd "$(dirname "$0")/.."
B=${B:-build}   # the build directory (make B=...); CI: build
quick=""; [ "${1:-}" = "--quick" ] && quick="--quick"
LIB=/usr/lib/x86_64-linux-gnu
REF_PATH="$LIB/blas:$LIB/lapack"
OB_PATH="$LIB/openblas-serial"
export OPENBLAS_NUM_THREADS=1
logdir=$B/test-logs/variants
mkdir -p "$logdir"
fail=0
summary=()

# proof NAME LOGPREFIX BLASDIR LAPACKDIR FORBID: the loader's "calling init"
# lines of the test's process name BLASDIR/libblas.so.3 and
# LAPACKDIR/liblapack.so.3, and nothing mapped matches FORBID.
proof() {
  local name=$1 pre=$2 bdir=$3 ldir=$4 forbid=$5 ok=0
  local inits; inits=$(cat "$pre".* 2>/dev/null | grep -o 'calling init: .*' | sed 's/calling init: //' | grep -E 'blas|lapack' | sort -u)
  echo "   loader initialised: $(echo $inits)"
  echo "$inits" | grep -qx "$bdir/libblas.so.3" || { echo "   PROOF FAILED: $name did not load $bdir/libblas.so.3"; ok=1; }
  echo "$inits" | grep -qx "$ldir/liblapack.so.3" || { echo "   PROOF FAILED: $name did not load $ldir/liblapack.so.3"; ok=1; }
  if [ -n "$forbid" ] && echo "$inits" | grep -q -- "$forbid"; then echo "   PROOF FAILED: $name loaded $forbid"; ok=1; fi
  return $ok
}

# run VARIANT DIR LDPATH BLASDIR LAPACKDIR FORBID
run_variant() {
  local v=$1 dir=$2 ldpath=$3 bdir=$4 ldir=$5 forbid=$6
  echo "======== variant $v: $dir, LD_LIBRARY_PATH=$ldpath"
  for t in reference_test robustness_test; do
    local args=""; [ $t = robustness_test ] && args=$quick
    local pre="$logdir/$v-$t-ld" out="$logdir/$v-$t.log" st=0
    rm -f "$pre".*
    echo "== $t $args ($v)"
    local start=$SECONDS
    LD_LIBRARY_PATH=$ldpath LD_DEBUG=libs LD_DEBUG_OUTPUT=$pre "$dir/$t" $args > "$out" 2>&1 || st=1
    cat "$out"
    proof "$t" "$pre" "$bdir" "$ldir" "$forbid" || st=2
    if [ $t = robustness_test ]; then
      grep -qx "linalg: blas dgemv_ from $bdir/.*" "$out" || { echo "   PROOF FAILED: dgemv_ not from $bdir"; st=2; }
      grep -qx "linalg: lapack dgetrf_ from $ldir/.*" "$out" || { echo "   PROOF FAILED: dgetrf_ not from $ldir"; st=2; }
      if [ -n "$forbid" ] && grep '^linalg: mapped' "$out" | grep -q -- "$forbid"; then echo "   PROOF FAILED: $forbid mapped"; st=2; fi
    fi
    local res=PASS; [ $st = 1 ] && res=FAIL; [ $st = 2 ] && res="FAIL (wrong library)"
    [ $st != 0 ] && fail=1
    summary+=("$(printf '%-9s %-16s %-22s %s (%d s)' "$v" "$t" "$res" "$(tail -n 1 "$out")" $((SECONDS - start)))")
  done
}

run_variant refblas $B/tests "$REF_PATH" "$LIB/blas" "$LIB/lapack" openblas
run_variant openblas $B/tests "$OB_PATH" "$OB_PATH" "$OB_PATH" ""
# the o3 build: prove the flags, then run it with the reference libraries
o3ok=0
for t in reference_test robustness_test; do
  prods=$(readelf --debug-dump=info "$B/o3/tests/$t" 2>/dev/null | grep 'DW_AT_producer')
  n=$(echo "$prods" | grep -c 'GNU C'); m=$(echo "$prods" | grep -- ' -O3' | grep -c -- ' -ffp-contract=fast')
  echo "$B/o3/tests/$t: $m of $n compilation units built with -O3 -ffp-contract=fast"
  [ "$n" -gt 0 ] && [ "$n" = "$m" ] || { echo "PROOF FAILED: $B/o3/tests/$t is not an -O3 -ffp-contract=fast build"; o3ok=1; }
done
if [ $o3ok = 0 ]; then
  run_variant o3 $B/o3/tests "$REF_PATH" "$LIB/blas" "$LIB/lapack" openblas
else
  fail=1; summary+=("o3        (not run: build flags not proven)")
fi

echo "======== summary"
printf '%s\n' "${summary[@]}"
exit $fail
