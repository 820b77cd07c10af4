#!/usr/bin/env bash
# scripts/check_layers.sh [ROOT] - fail when a file under ROOT/common includes
# a header of a higher layer (issue 12).
#
# The layers are the table between the "layers: begin" and "layers: end"
# markers of ROOT/common/mbs/README.md: rank, layer name, folders (or files)
# relative to common/, description.  A file belongs to the layer of the
# longest folder of the table that holds it.  An include is allowed into the
# file's own layer or into a layer of lower rank; a layer of the same rank
# but another name (a sibling) or of higher rank is a violation.  A source
# file under common/ that no row holds is an error too, so that the table
# stays complete.  Only `#include "..."` lines count; a header that is not
# found under the including file's folder or common/ (a system header) is
# not checked.
#
# Output: one line per violation, "file:line: includes HDR: layer A (rank a)
# -> layer B (rank b)"; exit status 1 if there was any, 0 otherwise.
#
# A second rule (issue 12, docs/formulations.md "The formulation boundary"):
# the integrators listed in BEHIND_BOUNDARY below see the equations only
# through a formulation boundary, formulation/formulation.h (ODE form) or
# formulation/dae_form.h (DAE form), and the rigid contacts through
# formulation/contact_rows.h.  Such a file may include no other header
# under mbs/formulation/ (e.g. formulation/natural/natural.h), nor the
# natural coordinates' contact rows (contact/contact_rigid.h), and may read
# no natural-coordinate field of the model (NATURAL_FIELDS: "m->nvar",
# "d->m->neq", ...; sizes, orderings, band widths and scales are the form's).
# The ODE-form drivers (ODE_DRIVERS below) see the run's controllers and
# forces through the form's hooks too (next_stop, sample: the sampled
# controllers measure the natural coordinates, dynamics/controller.h), so
# they may include nothing of mbs/dynamics/, mbs/analysis/ nor
# mbs/contact/ (the layers that evaluate on the natural coordinates).
# Each violation is one line "file:line: ..." and makes the exit status 1.
set -u

# integrator files behind the boundary (paths under common/)
BEHIND_BOUNDARY="mbs/integrate/integrator_al.c mbs/integrate/integrator_bdf.c mbs/integrate/bdf_sample.c mbs/integrate/bdf_ode.c mbs/integrate/integrator_mj.c mbs/integrate/integrator_mj_pgs.c mbs/integrate/integrator_mj_ws.h mbs/integrate/mj_error.c mbs/integrate/mj_error.h mbs/integrate/integrator_ed.c mbs/integrate/ed_contacts.c mbs/integrate/ed_contacts_lcp.c mbs/integrate/ed_contacts.h mbs/integrate/dopri5.c"
# the drivers of the ODE form (formulation/formulation.h), a subset of the above
ODE_DRIVERS="mbs/integrate/dopri5.c mbs/integrate/bdf_ode.c"
# the natural coordinates' fields of mbs_model (model/model.h)
NATURAL_FIELDS="nvar|neq|eq|colpool|eqav|jcpool|x0|v0|body|nb|M_ptr|M_col|M_val|perm|iperm|kd|nkkt|kperm|kiperm|kkl|kku|nggl|gperm|giperm|gkl|gku|jg|nrotor|rotor|fpts|spring_len0|nstate_el|stel|cshape|cfel|cpairs|length_scale|mass_scale|has_stiffness"
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
readme=$root/common/mbs/README.md
[ -f "$readme" ] || { echo "check_layers: $readme not found" >&2; exit 2; }

# the table: "prefix rank layer" lines, one per folder or file of a row
table=$(awk '
  /layers: begin/ { on = 1; next }
  /layers: end/   { on = 0 }
  on && /^\|[ ]*[0-9]+[ ]*\|/ {
    n = split($0, c, "|")
    rank = c[2]; name = c[3]; gsub(/[ `]/, "", rank); gsub(/[ `]/, "", name)
    m = split(c[4], f, ",")
    for (i = 1; i <= m; i++) { p = f[i]; gsub(/[ `]/, "", p); sub(/\/$/, "", p); print p, rank, name }
  }' "$readme")
[ -n "$table" ] || { echo "check_layers: no layer table in $readme" >&2; exit 2; }

# every "#include" line of every source file, as "file<TAB>line<TAB>header"
cd "$root/common" || exit 2
includes=$(find . -name '*.[ch]' | sed 's|^\./||' | sort | while read -r f; do
  grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
    sed -E 's/^([0-9]+):[^"]*"([^"]+)".*/\1\t\2/' |
    while IFS=$'\t' read -r line hdr; do
      # resolve the header as the compiler does: beside the file, then -Icommon
      d=$(dirname "$f")
      if [ -f "$d/$hdr" ]; then t=$(realpath -m --relative-to=. "$d/$hdr")
      elif [ -f "$hdr" ]; then t=$hdr
      else continue
      fi
      printf '%s\t%s\t%s\t%s\n' "$f" "$line" "$hdr" "$t"
    done
  printf '%s\t-\t-\t-\n' "$f"   # the file itself, so that unlisted files are found
done)

# match files to layers and compare the ranks
awk -F'\t' -v table="$table" '
  BEGIN {
    n = split(table, rows, "\n")
    for (i = 1; i <= n; i++) { split(rows[i], r, " "); pre[i] = r[1]; rank[i] = r[2]; name[i] = r[3] }
    np = n; bad = 0
  }
  # index of the row holding path p (longest prefix), 0 if none
  function layer(p,    i, best, bl) {
    best = 0; bl = -1
    for (i = 1; i <= np; i++)
      if ((p == pre[i] || index(p, pre[i] "/") == 1) && length(pre[i]) > bl) { best = i; bl = length(pre[i]) }
    return best
  }
  {
    a = layer($1)
    if (!a) { if (!(($1) in unlisted)) { unlisted[$1] = 1; printf "common/%s: in no layer of common/mbs/README.md\n", $1; bad = 1 } next }
    if ($2 == "-") next
    b = layer($4)
    if (!b) next   # reported as unlisted on its own line
    if (rank[b] > rank[a] || (rank[b] == rank[a] && name[b] != name[a])) {
      printf "common/%s:%s: includes \"%s\": layer %s (rank %s) -> layer %s (rank %s)%s\n", $1, $2, $3,
             name[a], rank[a], name[b], rank[b], rank[b] == rank[a] ? ", a sibling" : ", a higher layer"
      bad = 1
    }
  }
  END { exit bad }' <<<"$includes"
status=$?
[ $status -eq 0 ] && echo "check_layers: every include under common/ goes down a layer or stays in its own"

# the integrators behind the formulation boundary
bstatus=0
for f in $BEHIND_BOUNDARY; do
  [ -f "$f" ] || { echo "check_layers: common/$f (listed in BEHIND_BOUNDARY) not found"; bstatus=1; continue; }
  # headers under mbs/formulation/ other than the two boundaries
  while IFS=: read -r line hdr; do
    case $hdr in
      mbs/formulation/formulation.h | mbs/formulation/dae_form.h | mbs/formulation/contact_rows.h) ;;
      mbs/formulation/* | mbs/contact/contact_rigid.h)
        echo "common/$f:$line: includes \"$hdr\": behind the formulation boundary," \
             "only formulation/formulation.h, formulation/dae_form.h and formulation/contact_rows.h"; bstatus=1 ;;
    esac
  done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | sed -E 's/^([0-9]+):[^"]*"([^"]+)".*/\1:\2/')
  # the model's natural-coordinate fields (outside comments is not told
  # apart: a comment naming one is reworded)
  while IFS=: read -r line text; do
    echo "common/$f:$line: reads a natural-coordinate field of the model behind the formulation boundary: $text"
    bstatus=1
  done < <(grep -nE "(^|[^A-Za-z0-9_])m->($NATURAL_FIELDS)([^A-Za-z0-9_]|\$)" "$f" | sed -E 's/^([0-9]+):[[:space:]]*/\1:/')
done
# the ODE-form drivers: nothing of the layers evaluating on the natural coordinates
for f in $ODE_DRIVERS; do
  [ -f "$f" ] || { echo "check_layers: common/$f (listed in ODE_DRIVERS) not found"; bstatus=1; continue; }
  while IFS=: read -r line hdr; do
    case $hdr in
      mbs/dynamics/* | mbs/analysis/* | mbs/contact/*)
        echo "common/$f:$line: includes \"$hdr\": an ODE-form driver reaches the run's controllers and forces" \
             "through the form's hooks only (formulation/formulation.h)"; bstatus=1 ;;
    esac
  done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | sed -E 's/^([0-9]+):[^"]*"([^"]+)".*/\1:\2/')
done
[ $bstatus -eq 0 ] && echo "check_layers: the integrators behind the formulation boundary ($BEHIND_BOUNDARY) include no formulation and read no natural-coordinate field; the ODE-form drivers ($ODE_DRIVERS) nothing of dynamics/, analysis/, contact/"
[ $bstatus -ne 0 ] && status=1
exit $status
