#!/usr/bin/env bash
# tests/suite_cli.sh - the command-line tool end to end, short fuzzing
# runs of the mechanism parser, the whole solver and the sweep designs (longer: make fuzz), and the include-layer
# check of common/ with its self-test (scripts/check_layers.sh).
set -u
cd "$(dirname "$0")/.."
fail=0
echo "== include layers (common/mbs/README.md)"
bash tests/cli/test_layers.sh || fail=1
bash tests/cli/test_cli.sh || fail=1
echo "== scale_test (a mechanism scaled by 1e-8 .. 1e3: the same report and motion)"
python3 tests/cli/scale_test.py build/mbs || fail=1
echo "== fuzz_mechanism, 20 s"
mkdir -p build/fuzz-corpus-ci
build/fuzz_mechanism -max_total_time=20 -max_len=65536 -print_final_stats=0 build/fuzz-corpus-ci tests/fuzz/corpus \
  > build/fuzz-ci.log 2>&1 || { tail -40 build/fuzz-ci.log; fail=1; }
tail -1 build/fuzz-ci.log
echo "== fuzz_solve (parse, build, 0.01 s run), 20 s"
mkdir -p build/fuzz-corpus-solve-ci
build/fuzz_solve -max_total_time=20 -max_len=65536 -timeout=10 -print_final_stats=0 build/fuzz-corpus-solve-ci \
  tests/fuzz/corpus examples > build/fuzz-solve-ci.log 2>&1 || { tail -40 build/fuzz-solve-ci.log; fail=1; }
tail -1 build/fuzz-solve-ci.log
echo "== fuzz_design (sweep design expansion), 10 s"
mkdir -p build/fuzz-corpus-design-ci
build/fuzz_design -max_total_time=10 -max_len=65536 -timeout=10 -print_final_stats=0 build/fuzz-corpus-design-ci \
  tests/fuzz/corpus_design examples/sweeps > build/fuzz-design-ci.log 2>&1 || { tail -40 build/fuzz-design-ci.log; fail=1; }
tail -1 build/fuzz-design-ci.log
exit $fail
