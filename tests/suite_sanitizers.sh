#!/usr/bin/env bash
# tests/suite_sanitizers.sh - the same unit tests built with AddressSanitizer
# and UndefinedBehaviorSanitizer (build/san): any leak, overflow or undefined
# behaviour fails.  The reference test runs in --quick mode (one integrator,
# end times capped) because the instrumented build is ~10x slower.
set -u
cd "$(dirname "$0")/.."
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
fail=0
for t in linalg_test lcp_test contact_geom_test expr_test mechanism_test controller_test solver_test elements_test contact_test clearance_test ed_contact_test rigid_test ode_form_test dae_form_test relative_bdf_test relative_mj_test mj_form_test ed_form_test; do
  echo "== $t (ASan/UBSan)"
  build/san/tests/$t || fail=1
done
echo "== contact_unknowns_test --quick (ASan/UBSan)"
build/san/tests/contact_unknowns_test --quick || fail=1
echo "== reference_test --quick (ASan/UBSan)"
build/san/tests/reference_test --quick || fail=1
echo "== mbs run under ASan/UBSan on every example (0.1 s of motion each)"
for f in examples/*.json; do
  build/san/mbs run "$f" --set solver.t_end=0.1 --quiet > /dev/null || { echo "FAIL: $f"; fail=1; }
done
exit $fail
