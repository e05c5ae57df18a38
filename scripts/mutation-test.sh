#!/usr/bin/env bash
# Mutation testing: breaks NAL on purpose, one line at a time, and checks that a test notices.
#
#   scripts/mutation-test.sh            every mutation in scripts/mutations.tsv
#   scripts/mutation-test.sh PATTERN    only those whose line in the list matches PATTERN (a Python regex)
#   NAL_MUTATION_FROM=N                 only those from line N of the list on (the ones added since)
#   scripts/mutation-test.sh --check-list   only checks the list against the code, without building (CI runs it)
#   scripts/mutation-test.sh --coverage     the source files the list covers least, by rows per line of code
#
# Each line of scripts/mutations.tsv is: file, the exact text to break (found once in the file; `\n` joins lines),
# its replacement, the test filter that must catch it, and what the bug would do; separated by tabs. A filter "curl:X"
# runs the suites X against CurlTransport (NAL_TEST_TRANSPORT=curl). A filter "allocations:X" builds the release
# nal-bench and compares the allocations of its scenarios X with Benchmarks/Baselines/main.json: a mutation that only
# costs allocations (a reservation dropped) is caught by that count, which is deterministic. A filter ending
# in ` @N` marks a race-dependent mutation (a crash FoundationNetworking shows only on some interleavings): its tests
# run up to N times, and one failure catches it. The list says why each such row cannot be made deterministic. The script
# copies the repository to a scratch folder (NAL_MUTATION_DIR, /tmp/nal-mutation by default), applies one mutation
# there, builds incrementally, runs the filtered tests against a local httpbin and fault server, and restores the
# file. Each filter first runs once on the unmutated code: it must pass and run at least one test (not skipped). A
# mutation is caught when a test fails, the test process dies, or it hangs (NAL_MUTATION_TIMEOUT seconds, 180 by
# default; the whole process group is killed). It prints a table and exits 1 when any mutation survived, 2 when the
# list is wrong: a text not found exactly once, a filter that fails or runs nothing unmutated, a mutant that does
# not build (a mutation must be a bug that compiles), or no row matching PATTERN.
set -uo pipefail
cd "$(dirname "$0")/.."
# The heavy tests (big transfers, call storms) run when a filter names them, with transfers of 16 MiB.
export NAL_BIG_TRANSFERS=1 NAL_TRANSFER_TEST_BYTES=${NAL_TRANSFER_TEST_BYTES:-$((16 << 20))}
REPO=$(pwd)
LIST=scripts/mutations.tsv
SCRATCH=${NAL_MUTATION_DIR:-/tmp/nal-mutation}
TIMEOUT=${NAL_MUTATION_TIMEOUT:-180}
PATTERN=${1:-}
if [[ "$PATTERN" == "--check-list" ]]; then
    exec python3 scripts/lib/mutate.py --check-list "$LIST"
fi
if [[ "$PATTERN" == "--coverage" ]]; then
    exec python3 scripts/lib/mutation_coverage.py "$LIST"
fi

source scripts/lib/servers.sh
trap stop_servers EXIT
[[ -n "${NAL_HTTPBIN_URL:-}" ]] || start_httpbin || { echo "Error: httpbin did not start" >&2; exit 1; }
[[ -n "${NAL_FAULT_URL:-}" ]] || start_fault_server || { echo "Error: the fault server did not start" >&2; exit 1; }
[[ -n "${NAL_H2_URL:-}" ]] || start_h2_server || { echo "Error: the HTTP/2 server did not start" >&2; exit 1; }

echo "== scratch copy in $SCRATCH"
mkdir -p "$SCRATCH"
# The tracked files and the working tree's changes; the scratch copy keeps its own build folder between runs.
find "$SCRATCH" -mindepth 1 -maxdepth 1 ! -name .build -exec rm -rf {} +
git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$SCRATCH"
cd "$SCRATCH" || exit 1
swift build --build-tests > build.log 2>&1 || { echo "Error: the unmutated copy does not build; see $SCRATCH/build.log" >&2; exit 1; }

python3 "$REPO/scripts/lib/mutate.py" "$REPO/$LIST" "$SCRATCH" "$TIMEOUT" "$PATTERN"
status=$?
stop_servers
exit $status
