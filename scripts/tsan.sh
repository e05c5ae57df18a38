#!/usr/bin/env bash
# The test suite under ThreadSanitizer (data races), in a build folder of its own. Starts the local httpbin and
# fault server as scripts/test.sh does.
#
#   scripts/tsan.sh [FILTER]    the whole suite but the command-line tests, or the tests FILTER matches
#
# Exits non-zero when a test fails or ThreadSanitizer reports anything. CI runs it (.ci/run).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/sanitizer.sh
# halt_on_error: the first race fails the run, in the test that found it. The suppressions are the toolchain's
# known false positives, each explained in the file.
run_under_sanitizer thread .build-tsan TSAN_OPTIONS \
    "halt_on_error=1 print_suppressions=1 suppressions=$PWD/scripts/tsan-suppressions.txt" "WARNING: ThreadSanitizer" \
    "${1:-}"
