#!/usr/bin/env bash
# bench/blas.sh - reference BLAS/LAPACK (libblas3, liblapack3) against OpenBLAS
# serial (libopenblas0-serial) with OPENBLAS_NUM_THREADS=1 (one job per core):
# the same build/bench/solver_bench binary, in the same invocation, once per
# library chosen by LD_LIBRARY_PATH (the loader's own record, LD_DEBUG=libs,
# proves which libblas.so.3 / liblapack.so.3 each run initialised).  Prints
# the timed rows of every solver_bench table side by side, and the CPU
# seconds of each whole run (user + system: robust to other load on the
# machine, unlike the wall times inside the tables).
#
#   bash bench/blas.sh            all solver_bench tables (about 3 CPU minutes per library)
#   bash bench/blas.sh --target   the N-four-bar target and scaling tables only
set -u
cd "$(dirname "$0")/.."
LIB=/usr/lib/x86_64-linux-gnu
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
export OPENBLAS_NUM_THREADS=1
[ -x build/bench/solver_bench ] || make -s build/bench/solver_bench
echo
echo "## BLAS: reference BLAS/LAPACK against OpenBLAS serial (bench/blas.sh)"
echo
for v in reference openblas; do
  case $v in reference) p="$LIB/blas:$LIB/lapack" ;; openblas) p="$LIB/openblas-serial" ;; esac
  TIMEFORMAT="%U %S"
  { time LD_LIBRARY_PATH=$p LD_DEBUG=libs LD_DEBUG_OUTPUT=$T/ld-$v build/bench/solver_bench "$@" > "$T/$v.md" 2>&1 ; } 2> "$T/$v.cpu"
  libs=$(cat "$T"/ld-$v.* | grep -o 'calling init: .*' | sed 's/calling init: //' | grep -E 'lib(open)?blas|liblapack\.' | sort -u | tr '\n' ' ')
  echo "- $v: \`LD_LIBRARY_PATH=$p build/bench/solver_bench $*\`; loaded: $libs"
done
python3 - "$T/reference.md" "$T/openblas.md" "$T/reference.cpu" "$T/openblas.cpu" <<'PY'
import sys
TIMED = ("wall", "us per step", "ms per simulated s")
def tables(path):
    """markdown tables of solver_bench: {title: (header, {key: row})}"""
    out, title, header = {}, "", None
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("#"):
            title, header = line.lstrip("# "), None
        elif line.startswith("|") and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if header is None:
                header = cells
                out[title] = (header, {})
            else:
                k0 = next((i for i, h in enumerate(header) if h.startswith(TIMED)), 1)
                out[title][1][" / ".join(cells[:k0])] = cells
    return out
ref, ob = tables(sys.argv[1]), tables(sys.argv[2])
print()
for title, (header, rows) in ref.items():
    cols = [i for i, h in enumerate(header) if h.startswith(TIMED)]
    if not cols or title not in ob:
        continue
    print("### " + title + "\n")
    k0 = cols[0]
    print("| " + " | ".join(header[:k0]) + " | " + " | ".join(
        "%s ref | %s OpenBLAS | ref / OpenBLAS" % (header[i], header[i]) for i in cols) + " |")
    print("|" + "---|" * k0 + "---:|---:|---:|" * len(cols))
    for key, r in rows.items():
        o = ob[title][1].get(key)
        if not o:
            continue
        cells = []
        for i in cols:
            try:
                a, b = float(r[i]), float(o[i])
                cells += [r[i], o[i], "%.2f" % (a / b) if b > 0 else "-"]
            except (ValueError, IndexError):
                cells += [r[i] if i < len(r) else "", o[i] if i < len(o) else "", "-"]
        print("| " + " | ".join(r[:k0]) + " | " + " | ".join(cells) + " |")
    print()
cpu = [sum(float(x) for x in open(f).read().split()[:2]) for f in sys.argv[3:5]]
print("CPU seconds of the whole solver_bench run (user + system): reference %.1f, OpenBLAS %.1f, ratio %.2f"
      % (cpu[0], cpu[1], cpu[0] / cpu[1]))
PY
