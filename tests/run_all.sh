#!/usr/bin/env bash
# Run every test suite: tests/suite_*.sh, two at a time (the CI machine has two
# cores).  Each suite writes its log to build/test-logs/<suite>.log; the log of
# a failed suite is printed.  Exit status: 0 only if every suite passed.
set -u
cd "$(dirname "$0")/.."
mkdir -p build/test-logs
suites=(tests/suite_*.sh)
fail=0
run_one() {
  local s=$1 name; name=$(basename "$s" .sh)
  local start=$SECONDS
  if bash "$s" >"build/test-logs/$name.log" 2>&1; then
    echo "PASS $name ($((SECONDS-start)) s)"
  else
    echo "FAIL $name ($((SECONDS-start)) s)"; return 1
  fi
}
export -f run_one
# two suites at a time; collect statuses
printf '%s\n' "${suites[@]}" | xargs -P 2 -I{} bash -c 'run_one {}' > build/test-logs/summary.txt
status=$?
cat build/test-logs/summary.txt
if [ $status -ne 0 ]; then
  for f in $(grep '^FAIL' build/test-logs/summary.txt | awk '{print $2}'); do
    echo "===== $f ====="; tail -n 80 "build/test-logs/$f.log"
  done
  exit 1
fi
echo "all suites passed"
