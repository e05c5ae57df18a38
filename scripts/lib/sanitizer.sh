# The test suite under a sanitizer, shared by scripts/asan.sh and scripts/tsan.sh:
#   run_under_sanitizer NAME FOLDER OPTIONS_VARIABLE OPTIONS REPORT_PATTERN [FILTER]
# builds with --sanitize=NAME in FOLDER, runs the suite but the command-line tests (or the tests FILTER matches)
# with OPTIONS_VARIABLE=OPTIONS, then, without a filter, the transport suites against CurlTransport twice (calls from
# ordinary tasks, then every call from the transport's own thread). Returns non-zero when a test fails or the
# sanitizer printed REPORT_PATTERN.
run_under_sanitizer() {
    local name=$1 folder=$2 variable=$3 options=$4 report=$5 filter_text=${6:-}
    source scripts/lib/servers.sh
    source scripts/lib/rerun.sh
    trap stop_servers EXIT
    # With CI=true, a server that does not start fails the run (its tests would all be skipped).
    start_test_servers || return 1

    echo "== build (debug, --sanitize=$name)"
    mkdir -p "$folder"
    # As in scripts/test.sh: a bounded number of tests at a time keeps the timing bounds meaningful.
    export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-16}
    swift build --build-tests --sanitize="$name" --scratch-path "$folder" > "$folder/build.log" 2>&1 \
        || { tail -30 "$folder/build.log"; return 1; }
    echo "== tests under --sanitize=$name"
    local filter=(--skip NALCLITests)
    [[ -n "$filter_text" ]] && filter=(--filter "$filter_text")
    # A timing check that fails under the whole run's load (a sanitizer slows every thread) runs again alone, as
    # in scripts/test.sh: scripts/lib/rerun.sh. A sanitizer report fails the run whatever the retry says.
    local sanitized=(--sanitize="$name" --scratch-path "$folder")
    rm -f "$folder"/test*.log*
    env "$variable=$options" swift test --skip-build "${sanitized[@]}" "${filter[@]}" 2>&1 | tee "$folder/test.log"
    local status=${PIPESTATUS[0]}
    if (( status != 0 )); then
        (export "$variable=$options"; rerun_failed_suites "$folder/test.log" "${sanitized[@]}") && status=0
        cat "$folder/test.log".* >> "$folder/test.log" 2>/dev/null || true
    fi
    if [[ -z "$filter_text" ]]; then
        for mode in curl curl-loop; do
            echo "== the transport suites against CurlTransport, NAL_TEST_TRANSPORT=$mode (C callbacks, the event loop)"
            env NAL_TEST_TRANSPORT="$mode" "$variable=$options" swift test --skip-build "${sanitized[@]}" \
                --filter "$TRANSPORT_SUITES" 2>&1 | tee "$folder/test-$mode.log"
            if (( PIPESTATUS[0] != 0 )); then
                (export NAL_TEST_TRANSPORT="$mode" "$variable=$options"
                    rerun_failed_suites "$folder/test-$mode.log" "${sanitized[@]}") || status=1
            fi
            cat "$folder/test-$mode.log"* >> "$folder/test.log"
        done
    fi
    if grep -q "$report" "$folder/test.log"; then
        echo "--sanitize=$name reported errors; see $folder/test.log" >&2
        return 1
    fi
    return "$status"
}
