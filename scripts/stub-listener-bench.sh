#!/usr/bin/env bash
# Throughput of `nal-cli stubs serve` beside scripts/loopback_server.py (which answers one fixed body and nothing
# else), with curl keeping 100 requests in flight (`curl -Z --parallel-max 100`), in interleaved rounds in one run.
# Both answer the same 88-byte JSON body; the stub server matches it from a .tail file and journals every request.
# Reports requests per second per round, the median ratio (NAL / Python), and the stub server's peak RSS (VmHWM).
#
#   scripts/stub-listener-bench.sh            the full run: 5 rounds of 20,000 requests; fails when the median ratio
#                                             is under 1.0 or the peak RSS over its bound
#   scripts/stub-listener-bench.sh --quick    the small variant CI runs: 2 rounds of 2,000 requests; checks that every
#                                             answer is a 200 and the RSS bound, not the ratio (CI machines are noisy)
#
# The RSS bound is 128 MiB: the journal keeps the last 1,000 requests (StubServer.defaultJournalCapacity), so memory
# must not grow with the number of requests served. Builds the release nal-cli first.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=5
REQUESTS=20000
CHECK_RATIO=1
if [[ "${1:-}" == "--quick" ]]; then
    ROUNDS=2
    REQUESTS=2000
    CHECK_RATIO=0
elif [[ $# -gt 0 ]]; then
    echo "usage: scripts/stub-listener-bench.sh [--quick]" >&2
    exit 64
fi
RSS_BOUND_KIB=$((128 * 1024))

command -v curl > /dev/null || { echo "Error: curl is needed" >&2; exit 1; }
swift build -c release --product nal-cli > /dev/null 2>&1 \
    || { echo "Error: nal-cli does not build: swift build -c release --product nal-cli" >&2; exit 1; }
CLI="$(swift build -c release --show-bin-path)/nal-cli"

source scripts/bench-common.sh
WORK=$(mktemp -d)
start_server loopback_server.py
PYTHON_URL="http://127.0.0.1:$PORT"

mkdir -p "$WORK/fixtures"
printf 'GET\n/users/octocat$\n200\nContent-Type: application/json\n\n{"login":"octocat","id":583231,"name":"The Octocat","public_repos":8,"site_admin":false}' \
    > "$WORK/fixtures/octocat.tail"
"$CLI" stubs serve "$WORK/fixtures" --port 0 > "$WORK/serve.out" 2> "$WORK/serve.err" &
STUBS=$!
trap 'kill $SERVER $STUBS 2>/dev/null || true; rm -f "$SERVER_LOG"; rm -rf "$WORK"' EXIT
for _ in $(seq 1 100); do
    STUB_URL=$(head -n 1 "$WORK/serve.out" 2> /dev/null || true)
    [[ -n "$STUB_URL" ]] && break
    sleep 0.1
done
[[ -n "${STUB_URL:-}" ]] || { echo "Error: nal-cli stubs serve did not start: $(cat "$WORK/serve.err")" >&2; exit 1; }

# One curl config per server: REQUESTS URLs, each answer's status on its own line.
for name in python stubs; do
    base=$PYTHON_URL
    [[ $name == stubs ]] && base=$STUB_URL
    awk -v n="$REQUESTS" -v url="$base/users/octocat" \
        'BEGIN { for (i = 0; i < n; i++) { print "url = \"" url "\""; print "output = \"/dev/null\"" } }' \
        > "$WORK/$name.curl"
done

# run NAME: requests per second of one round; fails unless every answer is a 200.
run() {
    local start end statuses ok
    start=$(date +%s.%N)
    statuses=$(curl -s --no-progress-meter -Z --parallel-max 100 -w '%{http_code}\n' -K "$WORK/$1.curl")
    end=$(date +%s.%N)
    ok=$(grep -c '^200$' <<< "$statuses" || true)
    if [[ "$ok" != "$REQUESTS" ]]; then
        echo "Error: $1 answered $ok of $REQUESTS requests with 200" >&2
        exit 1
    fi
    awk -v n="$REQUESTS" -v s="$start" -v e="$end" 'BEGIN { printf "%.0f", n / (e - s) }'
}

echo "== $ROUNDS rounds of $REQUESTS requests, 100 in flight (curl -Z), Python first then NAL in each round"
printf '%-6s %14s %14s %8s\n' round "python req/s" "nal req/s" ratio
ratios=()
for round in $(seq 1 "$ROUNDS"); do
    python=$(run python)
    stubs=$(run stubs)
    ratio=$(awk -v a="$stubs" -v b="$python" 'BEGIN { printf "%.2f", a / b }')
    ratios+=("$ratio")
    printf '%-6s %14s %14s %8s\n' "$round" "$python" "$stubs" "$ratio"
done
median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }')
rss=$(awk '/^VmHWM:/ { print $2 }' "/proc/$STUBS/status")
echo "median ratio (NAL / Python): $median"
echo "nal-cli stubs serve peak RSS: $((rss / 1024)) MiB (bound $((RSS_BOUND_KIB / 1024)) MiB)"
status=0
if (( rss > RSS_BOUND_KIB )); then
    echo "FAIL: peak RSS over its bound" >&2
    status=1
fi
if (( CHECK_RATIO )) && awk -v m="$median" 'BEGIN { exit !(m < 1.0) }'; then
    echo "FAIL: the stub server served fewer requests per second than the Python server" >&2
    status=1
fi
exit $status
