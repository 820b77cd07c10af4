#!/usr/bin/env bash
# tests/suite_web.sh - the web front end (web/, docs/frontend.md): the bundle
# built by make (npm ci + Vite into build/www), then the browser tests of
# tests/browser/ (Debian's chromium through playwright-core, node --test)
# against the real gateway, PostgreSQL and workers, which tests/browser/run.sh
# starts on free ports and stops on exit, pass or fail.
set -u
cd "$(dirname "$0")/.."
start=$SECONDS
make -s build/gateway build/worker build/www/index.html || { echo "suite_web: build failed" >&2; exit 1; }
timeout 2400 bash tests/browser/run.sh; rc=$?
echo "suite_web: $((SECONDS - start)) s"
exit $rc
