#!/usr/bin/env bash
# tests/suite_solver.sh - the solver and parser unit tests (optimised build):
# expression and parser tables, analytic solutions, every example against
# its reference values with the three integrators.
set -u
cd "$(dirname "$0")/.."
fail=0
for t in linalg_test motor_test reaction_ctrl_test sysgraph_test relative_test relative_blocks_test relative_reaction_test relative_accuracy_test relative_bdf_test relative_mj_test formulations_test ode_form_test dae_form_test control_test actuator_test motor_energy_test controller_signal_test rotor_test rotor_slide_test rotor_space_test controller_test lcp_test contact_geom_test expr_test mechanism_test solver_test elements_test contact_test clearance_test ed_contact_test rigid_test mj_form_test mj_error_test ed_form_test contact_examples_test contact_unknowns_test ggl_sparse_test rank_margin_test reaction_test reference_test; do
  echo "== $t"
  build/tests/$t || fail=1
done
# the constrained inverse of the Moreau-Jean islands (issue 14)
echo "== cinv_test"
build/tests/cinv_test || fail=1
# tolerance proportionality (issue 9): tolerances 1e-3, 1e-6, 1e-9
echo "== tolerance_test --quick"
build/tests/tolerance_test --quick || fail=1
exit $fail
