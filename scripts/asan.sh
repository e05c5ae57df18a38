#!/usr/bin/env bash
# The test suite under AddressSanitizer (out-of-bounds reads and writes, use after free, leaks of C allocations),
# in a build folder of its own. Starts the local httpbin and fault server as scripts/test.sh does.
#
#   scripts/asan.sh [FILTER]    the whole suite but the command-line tests, or the tests FILTER matches
#
# Exits non-zero when a test fails or AddressSanitizer reports anything.
set -uo pipefail
cd "$(dirname "$0")/.."
FILTER=${1:-}
source scripts/lib/servers.sh
trap stop_servers EXIT
# With CI=true, a server that does not start fails the run (its tests would all be skipped).
start_test_servers || exit 1

echo "== build (debug, AddressSanitizer)"
mkdir -p .build-asan
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-16}
swift build --build-tests --sanitize=address --scratch-path .build-asan > .build-asan/build.log 2>&1 \
    || { tail -30 .build-asan/build.log; exit 1; }
echo "== tests under AddressSanitizer"
filter=(--skip NALCLITests)
[[ -n "$FILTER" ]] && filter=(--filter "$FILTER")
# Swift's runtime keeps some allocations until exit on purpose, so leak detection stays off. NAL's own C (CCurl's
# few wrappers) allocates nothing; the easy handles CurlTransport keeps are counted by a test instead
# (CurlHandleReuseTests, in a child process).
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 swift test --skip-build --sanitize=address --scratch-path .build-asan \
    "${filter[@]}" 2>&1 | tee .build-asan/test.log
status=${PIPESTATUS[0]}
if [[ -z "$FILTER" ]]; then
    # Twice: calls from ordinary tasks, then every call made from the transport's own thread (its executor).
    for mode in curl curl-loop; do
        echo "== the transport suites against CurlTransport, NAL_TEST_TRANSPORT=$mode (C callbacks, the event loop)"
        NAL_TEST_TRANSPORT=$mode ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 swift test --skip-build --sanitize=address \
            --scratch-path .build-asan --filter "$TRANSPORT_SUITES" 2>&1 \
            | tee -a .build-asan/test.log
        (( PIPESTATUS[0] == 0 )) || status=1
    done
fi
if grep -q "ERROR: AddressSanitizer" .build-asan/test.log; then
    echo "AddressSanitizer reported errors; see .build-asan/test.log" >&2
    exit 1
fi
exit "$status"
