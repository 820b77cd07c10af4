#!/usr/bin/env bash
# tests/cli/test_layers.sh - the include-layer check (scripts/check_layers.sh)
# on the tree as it is, which must pass, and on temporary copies of common/
# with one fault injected each, which must fail and name the file, the line
# and the two layers: an include that goes up a layer, one between sibling
# layers, and a source file in no layer; and an integrator behind the
# formulation boundary that includes natural.h or reads m->nvar; an ODE-form
# driver that includes the controllers (dynamics/).
set -u
cd "$(dirname "$0")/../.."
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== check_layers on the tree"
bash scripts/check_layers.sh || fail=1

# A fresh copy of common/ under $tmp/<name>/common; prints its root.
copy() {
  mkdir -p "$tmp/$1"
  cp -r common "$tmp/$1/common"
  echo "$tmp/$1"
}

# The check on root $1 must fail with a line matching the pattern $2.
expect_fail() {
  local out
  if out=$(bash scripts/check_layers.sh "$1" 2>&1); then
    echo "FAIL: check_layers passed on $3"; fail=1
  elif ! grep -qE "$2" <<<"$out"; then
    echo "FAIL: check_layers on $3 did not say: $2"; echo "$out"; fail=1
  else
    echo "ok: $3 -> $(grep -E "$2" <<<"$out" | head -1)"
  fi
}

# 1. linear algebra (rank 1) including the run state (model, rank 3), at
#    line 2 of linalg.c
r=$(copy up)
sed -i '1a #include "mbs/model/data.h"' "$r/common/mbs/linalg/linalg.c"
expect_fail "$r" '^common/mbs/linalg/linalg\.c:2: includes "mbs/model/data\.h": layer linalg \(rank 1\) -> layer model \(rank 3\), a higher layer$' \
  "an include from linalg up to model"

# 2. a contact file including an integrator header, by a path relative to
#    its folder (resolved as the compiler does)
r=$(copy up_relative)
sed -i '1a #include "../integrate/integrators.h"' "$r/common/mbs/contact/contact.c"
expect_fail "$r" '^common/mbs/contact/contact\.c:2: includes "\.\./integrate/integrators\.h": layer contact \(rank 5\) -> layer integrate \(rank 8\)' \
  "a relative include from contact up to integrate"

# 3. the natural coordinates including the relative formulation (siblings)
r=$(copy sibling)
sed -i '1a #include "mbs/formulation/relative/motor.h"' "$r/common/mbs/formulation/natural/ncs.c"
expect_fail "$r" '^common/mbs/formulation/natural/ncs\.c:2: .* layer natural \(rank 4\) -> layer relative \(rank 4\), a sibling$' \
  "an include between sibling layers"

# 4. a source file in a folder that no layer holds
r=$(copy unlisted)
mkdir -p "$r/common/mbs/stray"
printf '#include "mbs/mbs.h"\n' > "$r/common/mbs/stray/stray.c"
expect_fail "$r" '^common/mbs/stray/stray\.c: in no layer' "a file in no layer"

# 5. an integrator behind the formulation boundary including the natural
#    coordinates' header (allowed by the layers, refused by the boundary rule)
r=$(copy boundary_include)
sed -i '1a #include "mbs/formulation/natural/natural.h"' "$r/common/mbs/integrate/integrator_al.c"
expect_fail "$r" '^common/mbs/integrate/integrator_al\.c:2: includes "mbs/formulation/natural/natural\.h": behind the formulation boundary' \
  "an integrator behind the boundary including natural.h"

# 6. ... or reading a natural-coordinate field of the model
r=$(copy boundary_field)
sed -i 's/int n = f->n, ne = f->ne;/int n = m->nvar, ne = f->ne;/' "$r/common/mbs/integrate/integrator_bdf.c"
expect_fail "$r" '^common/mbs/integrate/integrator_bdf\.c:[0-9]+: reads a natural-coordinate field of the model' \
  "an integrator behind the boundary reading m->nvar"

# 6b. Moreau-Jean (behind the boundary since mj12f) taking the natural
# coordinates' contact rows or their mass matrix directly
r=$(copy boundary_mj_rows)
sed -i '1a #include "mbs/contact/contact_rigid.h"' "$r/common/mbs/integrate/integrator_mj.c"
expect_fail "$r" '^common/mbs/integrate/integrator_mj\.c:2: includes "mbs/contact/contact_rigid\.h": behind the formulation boundary' \
  "Moreau-Jean including the natural contact rows"
r=$(copy boundary_mj_field)
sed -i 's/const int \*M_ptr = w->f.mass_ptr, \*M_col = w->f.mass_col;/const int *M_ptr = m->M_ptr, *M_col = w->f.mass_col;/' \
  "$r/common/mbs/integrate/integrator_mj.c"
expect_fail "$r" '^common/mbs/integrate/integrator_mj\.c:[0-9]+: reads a natural-coordinate field of the model' \
  "Moreau-Jean reading m->M_ptr"

# 6c. an ODE-form driver (dopri5.c) including the controllers again: they
# measure the natural coordinates, reached through the form's hooks
r=$(copy ode_driver_ctrl)
sed -i '1a #include "mbs/dynamics/controller.h"' "$r/common/mbs/integrate/dopri5.c"
expect_fail "$r" '^common/mbs/integrate/dopri5\.c:2: includes "mbs/dynamics/controller\.h": an ODE-form driver' \
  "the Dormand-Prince driver including the controllers"

# 7. the copy itself, untouched, passes (the faults above are what failed)
r=$(copy clean)
bash scripts/check_layers.sh "$r" >/dev/null || { echo "FAIL: check_layers failed on an untouched copy"; fail=1; }

[ $fail -eq 0 ] && echo "test_layers: all passed"
exit $fail
