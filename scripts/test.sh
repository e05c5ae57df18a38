#!/usr/bin/env bash
# Runs NAL's whole test suite on a fresh machine: unit and CLI tests, then the allocation gate of the benchmarks.
# This is the README's test command, and what CI (.ci/run) runs.
#
# NAL_SKIP_BENCH=1 skips the release build and allocation gate while iterating locally.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== build (debug, with tests)"
swift build --build-tests

echo "== tests"
swift test --skip-build

if [[ "${NAL_SKIP_BENCH:-0}" == "1" ]]; then
    echo "== benchmarks: skipped (NAL_SKIP_BENCH=1)"
    exit 0
fi

echo "== benchmark allocation gate (release)"
swift build -c release --product nal-bench
"$(swift build -c release --show-bin-path)/nal-bench" --quick --check
