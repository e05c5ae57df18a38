#!/usr/bin/env bash
# Coverage-guided fuzzing of every parser NAL runs on untrusted text, with libFuzzer and AddressSanitizer from the
# toolchain (no package).
#
#   scripts/fuzz.sh                   every target for 30 s
#   scripts/fuzz.sh TARGET [SECONDS]  one target (see Fuzz/Targets/FuzzTargets.swift), or "all"
#   NAL_FUZZ_RUNS=N                   stop each target after N executions (SECONDS still caps it)
#   NAL_FUZZ_SANITIZER=none           libFuzzer without AddressSanitizer (own scratch folder): 2.5 to 4 times the
#                                     executions per second (most of ASan's cost here is a stack recorded per malloc).
#                                     For long runs of the targets whose code is safe Swift, whose bounds and overflow
#                                     checks trap in release builds too. Refused for the targets that reach NAL's
#                                     unsafe pointers, whose bounds only ASan checks in release: server-sent-events
#                                     (the parser and line splitter read raw buffers) and encoders (percent-encoding
#                                     through rebased buffers, keys sorted in a temporary allocation). CI keeps ASan.
#   NAL_FUZZ_MAX_LEN=N                inputs of at most N bytes (libFuzzer's default is the largest seed: 850 KB
#                                     for har, where 16384 gives 50 times the executions; the seeds include a
#                                     one-entry extract of each browser's export, under 7 KB, so the small inputs
#                                     start from every browser's shape)
#   NAL_FUZZ_TIMEOUT=S                seconds one input may take before it counts as a hang (10 by default). libFuzzer
#                                     times inputs by the wall clock, so a long run at nice 19 beside builds needs
#                                     more: one starved there for 18 s on an input that takes 0.5 ms
#
# A long run, as the closing notes report it:
#   NAL_FUZZ_SANITIZER=none NAL_FUZZ_RUNS=10000000 nice -n 19 scripts/fuzz.sh multipart 7200
#   NAL_FUZZ_SANITIZER=none NAL_FUZZ_MAX_LEN=16384 NAL_FUZZ_RUNS=10000000 nice -n 19 scripts/fuzz.sh har 7200
#
# Each target checks properties, not only "no crash" (a loaded .tail written again loads the same, a form encoded
# then read gives the same fields, a redacted output never holds the secret...). Seeds come from Fuzz/Corpus/<target>
# (the real HAR exports, the .tail fixtures, the README's examples); what libFuzzer learns goes to
# .build-fuzz/corpus/<target>, and a crashing input to .build-fuzz/crashes/. Every crash found becomes a file in
# Fuzz/Regressions/<target>, which the test suite replays (NALFuzzTests). Prints the executions per target; exits 1
# when a target crashed.
set -uo pipefail
cd "$(dirname "$0")/.."
TARGET=${1:-all}
SECONDS_EACH=${2:-30}
SCRATCH=.build-fuzz
case "${NAL_FUZZ_SANITIZER:-address}" in
    address) BUILD=$SCRATCH SANITIZE=fuzzer,address ;;
    none) BUILD=.build-fuzz-fast SANITIZE=fuzzer ;;
    *) echo "Error: NAL_FUZZ_SANITIZER is 'address' (the default) or 'none'" >&2; exit 64 ;;
esac
# The targets whose parsers read through unsafe pointers: only ASan checks their bounds in a release build.
needs_asan="server-sent-events encoders response-head"
TIMEOUT=${NAL_FUZZ_TIMEOUT:-10}
if [[ ! "$TIMEOUT" =~ ^[1-9][0-9]*$ ]]; then
    echo "Error: NAL_FUZZ_TIMEOUT is a number of seconds" >&2
    exit 64
fi
if [[ -n "${NAL_FUZZ_MAX_LEN:-}" && ! "$NAL_FUZZ_MAX_LEN" =~ ^[1-9][0-9]*$ ]]; then
    echo "Error: NAL_FUZZ_MAX_LEN is a number of bytes" >&2
    exit 64
fi

if [[ "$TARGET" == all ]]; then
    targets=$(ls Fuzz/Corpus)
else
    [[ -d "Fuzz/Corpus/$TARGET" ]] || { echo "Error: no target '$TARGET'; targets: $(ls Fuzz/Corpus | tr '\n' ' ')" >&2; exit 64; }
    targets=$TARGET
fi
if [[ "$SANITIZE" == fuzzer ]]; then
    for target in $targets; do
        if [[ " $needs_asan " == *" $target "* ]]; then
            echo "Error: $target reaches unsafe pointers, whose bounds only ASan checks: run it without NAL_FUZZ_SANITIZER=none" >&2
            exit 64
        fi
    done
fi

echo "== build nal-fuzz (release, -sanitize=$SANITIZE)"
mkdir -p "$SCRATCH" "$BUILD"
swift build -c release --product nal-fuzz --scratch-path "$BUILD" \
    -Xswiftc -sanitize=$SANITIZE -Xswiftc -DFUZZING -Xswiftc -use-ld=lld > "$BUILD/build.log" 2>&1 \
    || { tail -30 "$BUILD/build.log"; echo "Error: nal-fuzz did not build" >&2; exit 1; }
FUZZER="$BUILD/release/nal-fuzz"

failed=0
mkdir -p "$SCRATCH/crashes"
printf '%-22s %14s %10s %s\n' target executions exec/s result
for target in $targets; do
    mkdir -p "$SCRATCH/corpus/$target"
    log="$SCRATCH/$target.log"
    # -detect_leaks=0: corelibs-foundation's NSRegularExpression leaks ~500 bytes for some patterns (in
    # _CFRegularExpressionCreate, found by the tail target); LeakSanitizer would call that a crash of ours.
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} NAL_FUZZ_TARGET=$target "$FUZZER" -max_total_time="$SECONDS_EACH" \
        ${NAL_FUZZ_RUNS:+-runs=$NAL_FUZZ_RUNS} ${NAL_FUZZ_MAX_LEN:+-max_len=$NAL_FUZZ_MAX_LEN} -print_final_stats=1 -timeout="$TIMEOUT" -detect_leaks=0 \
        -rss_limit_mb=4096 -artifact_prefix="$SCRATCH/crashes/$target-" \
        "$SCRATCH/corpus/$target" "Fuzz/Corpus/$target" > "$log" 2>&1
    status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    result=ok
    if (( status != 0 )); then
        result="CRASH: $(grep -m1 -E 'NAL fuzz target|ERROR: AddressSanitizer|Fatal error|ERROR: libFuzzer' "$log")"
        failed=1
    fi
    printf '%-22s %14s %10s %s\n' "$target" "${runs:-?}" "${rate:-?}" "$result"
done
if (( failed )); then
    echo "Crashing inputs are in $SCRATCH/crashes; logs in $SCRATCH/<target>.log. Reproduce one without libFuzzer:"
    echo "  swift run nal-fuzz TARGET FILE"
fi
exit $failed
