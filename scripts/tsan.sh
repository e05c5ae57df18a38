#!/usr/bin/env bash
# The test suite under ThreadSanitizer (data races), in a build folder of its own. Starts the local httpbin and
# fault server as scripts/test.sh does.
#
#   scripts/tsan.sh [FILTER]    the whole suite but the command-line tests, or the tests FILTER matches
#
# Exits non-zero when a test fails or ThreadSanitizer reports anything. CI runs it (.ci/run).
set -uo pipefail
cd "$(dirname "$0")/.."
FILTER=${1:-}
source scripts/lib/servers.sh
trap stop_servers EXIT
# With CI=true, a server that does not start fails the run (its tests would all be skipped).
start_test_servers || exit 1

echo "== build (debug, ThreadSanitizer)"
mkdir -p .build-tsan
# As in scripts/test.sh: a bounded number of tests at a time keeps the timing bounds meaningful.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-16}
swift build --build-tests --sanitize=thread --scratch-path .build-tsan > .build-tsan/build.log 2>&1 \
    || { tail -30 .build-tsan/build.log; exit 1; }
echo "== tests under ThreadSanitizer"
filter=(--skip NALCLITests)
[[ -n "$FILTER" ]] && filter=(--filter "$FILTER")
# halt_on_error: the first race fails the run, in the test that found it. The suppressions are the toolchain's
# known false positives, each explained in the file.
TSAN_OPTIONS="halt_on_error=1 print_suppressions=1 suppressions=$PWD/scripts/tsan-suppressions.txt" swift test --skip-build --sanitize=thread --scratch-path .build-tsan \
    "${filter[@]}" 2>&1 | tee .build-tsan/test.log
status=${PIPESTATUS[0]}
if [[ -z "$FILTER" ]]; then
    # Twice: calls from ordinary tasks, then every call made from the transport's own thread (its executor).
    for mode in curl curl-loop; do
        echo "== the transport suites against CurlTransport, NAL_TEST_TRANSPORT=$mode (C callbacks, the event loop)"
        NAL_TEST_TRANSPORT=$mode TSAN_OPTIONS="halt_on_error=1 print_suppressions=1 suppressions=$PWD/scripts/tsan-suppressions.txt" swift test --skip-build --sanitize=thread \
            --scratch-path .build-tsan --filter "$TRANSPORT_SUITES" 2>&1 \
            | tee -a .build-tsan/test.log
        (( PIPESTATUS[0] == 0 )) || status=1
    done
fi
if grep -q "WARNING: ThreadSanitizer" .build-tsan/test.log; then
    echo "ThreadSanitizer reported errors; see .build-tsan/test.log" >&2
    exit 1
fi
exit "$status"
