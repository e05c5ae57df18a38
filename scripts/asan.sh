#!/usr/bin/env bash
# The test suite under AddressSanitizer (out-of-bounds reads and writes, use after free), in a build folder of its
# own. Starts the local httpbin and fault server as scripts/test.sh does.
#
#   scripts/asan.sh [FILTER]    the whole suite but the command-line tests, or the tests FILTER matches
#
# Exits non-zero when a test fails or AddressSanitizer reports anything.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/sanitizer.sh
# Swift's runtime keeps some allocations until exit on purpose, so leak detection stays off. NAL's own C (CCurl's
# wrappers and its zlib decoder, whose state zlib frees in inflateEnd) is freed by its owners; the easy handles
# CurlTransport keeps are counted by a test instead (CurlHandleReuseTests, in a child process).
run_under_sanitizer address .build-asan ASAN_OPTIONS "detect_leaks=0:abort_on_error=1" "ERROR: AddressSanitizer" \
    "${1:-}"
