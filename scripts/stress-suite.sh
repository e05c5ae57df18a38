#!/usr/bin/env bash
# The whole suite (integration included), RUNS times in a row, with two CPU-bound processes beside it: what a
# shared CI machine does to timing. Every run must pass.
#
#   scripts/stress-suite.sh [RUNS]      3 by default
#   NAL_TRANSFER_TEST_BYTES=n           the size of the big transfers (256 MiB by default here, 1 GiB in test.sh)
set -uo pipefail
cd "$(dirname "$0")/.."
usage() { sed -n '2,6s/^# \{0,1\}//p' "$0"; }
case "${1:-}" in
    -h | --help) usage; exit 0 ;;
esac
if [[ $# -gt 1 || ( $# -eq 1 && ! "$1" =~ ^[1-9][0-9]{0,3}$ ) ]]; then
    echo "Error: RUNS is a count from 1 to 9999; got '$*'" >&2
    usage >&2
    exit 64
fi
RUNS=${1:-3}
export NAL_TRANSFER_TEST_BYTES=${NAL_TRANSFER_TEST_BYTES:-$((256 << 20))}
export NAL_SKIP_BENCH=1
# As in CI: a server that cannot start fails the run instead of skipping its tests.
export CI=${CI:-true}

hogs=()
for _ in 1 2; do
    python3 -c 'while True: pass' &
    hogs+=($!)
done
trap 'kill "${hogs[@]}" 2>/dev/null' EXIT
echo "== CPU hogs: ${hogs[*]}"

for run in $(seq 1 "$RUNS"); do
    start=$(date +%s)
    if scripts/test.sh > ".build/stress-run-$run.log" 2>&1; then
        echo "run $run of $RUNS: passed in $(( $(date +%s) - start )) s ($(grep -h 'Test run with' .build/test-pass-*.log | tr '\n' ' '))"
    else
        echo "run $run of $RUNS: FAILED after $(( $(date +%s) - start )) s; see .build/stress-run-$run.log:"
        grep -E '✘|error:' ".build/stress-run-$run.log" | head -20
        exit 1
    fi
done
echo "== $RUNS runs passed with two CPU hogs"
