# The retry rule of the test passes (scripts/test.sh, scripts/lib/sanitizer.sh):
#   rerun_failed_suites LOG [SWIFT_TEST_ARGUMENT...]
# reads a `swift test` log, and runs each suite with a failing test again, alone, with the arguments given (a
# sanitizer's build folder, say). Returns 0 when every such suite passes alone: on two shared cores a whole pass's
# load stalls threads for seconds, past the timing checks' bounds and timeouts (a 1.1 s answer missing a 1.95 s
# timeout, a 1 s timeout ending at 6.7 s, a benchmark's quartiles as wide as its median). Returns 1 when a suite
# fails alone too, runs no test, or when the log records no failing test at all (a crash fails as it is). Every suite
# run again is named, so that a flaky one shows.
rerun_failed_suites() {
    local log=$1
    shift
    local issues suites suite
    # A parameterized test's line names its arguments first: "recorded an issue with 1 argument x → 1 at F.swift:3:4".
    issues=$(grep -E '✘ Test .* recorded an issue (with .* )?at [A-Za-z0-9_]+\.swift:[0-9]+' "$log" || true)
    [[ -n "$issues" ]] || return 1
    # The first location after "recorded an issue" is the test's; the message after it may name others.
    suites=$(while IFS= read -r line; do
        grep -oE ' at [A-Za-z0-9_]+\.swift:[0-9]+:[0-9]+' <<< " ${line#* recorded an issue }" | head -1 \
            | sed -E 's/ at ([A-Za-z0-9_]+)\.swift.*/\1/'
    done <<< "$issues" | sort -u)
    echo "== tests failed under the whole pass's load; each of their suites again, alone:" $suites
    for suite in $suites; do
        swift test --skip-build "$@" --filter "$suite" 2>&1 | tee "$log.$suite"
        grep -qE "Test run with [1-9][0-9]* tests? .*passed" "$log.$suite" \
            || { echo "Error: $suite failed alone too, or ran no test" >&2; return 1; }
    done
}
