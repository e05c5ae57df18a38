#!/usr/bin/env bash
# Memory at scale (issue 38): N GETs at once to a local keep-alive server (scripts/loopback_server.py), through
# URLSession.data(for:) and through NAL's Client over CurlTransport, each contender in a process of its own
# (`nal-bench scale`), in interleaved rounds. Each round prints both peak RSS growths (VmHWM minus the RSS before the
# calls) and their ratio; the run ends with the median ratio. Exits 1 when a call failed or the median ratio is above
# the limit (1.3 unless --limit says otherwise), 64 on a usage error.
#
#   scripts/scale-bench.sh                        10,000 calls at once, 3 rounds
#   scripts/scale-bench.sh --calls 2000 --rounds 1   the small variant CI runs (well under 30 s)
#
# Builds the release nal-bench first (a no-op when it is up to date).
set -euo pipefail
cd "$(dirname "$0")/.."

CALLS=10000
ROUNDS=3
LIMIT=1.3
while [[ $# -gt 0 ]]; do
    case "$1" in
        --calls) CALLS=${2:-}; shift 2 ;;
        --rounds) ROUNDS=${2:-}; shift 2 ;;
        --limit) LIMIT=${2:-}; shift 2 ;;
        -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "Error: unknown option '$1' (--calls N, --rounds N, --limit RATIO)" >&2; exit 64 ;;
    esac
done
[[ "$CALLS" =~ ^[1-9][0-9]*$ && "$ROUNDS" =~ ^[1-9][0-9]*$ ]] \
    || { echo "Error: --calls and --rounds need whole numbers greater than 0" >&2; exit 64; }

# Each call may hold a descriptor (a waiting socket, a pipe of the runtime) in both the server and the client: room
# for all of them, as far as the hard limit allows.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if [[ "$(ulimit -n)" != unlimited && "$(ulimit -n)" -lt $((CALLS + 1024)) ]]; then
    echo "note: ulimit -n is $(ulimit -n), below $((CALLS + 1024)); calls may fail for want of descriptors" >&2
fi

source scripts/bench-common.sh
require_bench
start_server loopback_server.py
URL="http://127.0.0.1:$PORT/user"

python3 - "$BENCH" "$URL" "$CALLS" "$ROUNDS" "$LIMIT" <<'EOF'
import json, statistics, subprocess, sys

bench, url, calls, rounds, limit = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])


def run(contender):
    done = subprocess.run([bench, "scale", contender, url, "--calls", str(calls)], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("Error: nal-bench scale %s exited with %d: %s" % (contender, done.returncode, done.stderr.strip()))
    return json.loads(done.stdout.strip().splitlines()[-1])


def mib(n):
    # The growth, and what it comes to per call.
    return "%.1f MiB (%.1f KiB)" % (n / 1048576, n / 1024 / calls)


print("%d GETs at once to %s, %d round(s), peak RSS growth (VmHWM - RSS before the calls; per call)" % (
    calls, url, rounds))
print("%-6s %-27s %-27s %s" % ("round", "URLSession.data(for:)", "Client + CurlTransport", "ratio"))
ratios, failed = [], 0
for index in range(rounds):
    # Interleaved, and the order alternates, so that neither contender always runs on a warmer machine.
    order = ["urlsession", "curl"] if index % 2 == 0 else ["curl", "urlsession"]
    results = {contender: run(contender) for contender in order}
    session, curl = results["urlsession"], results["curl"]
    for result in (session, curl):
        if result["failures"]:
            failed += result["failures"]
            print("  %s: %d calls failed, the first: %s" % (result["contender"], result["failures"],
                                                          result["firstFailure"]))
    ratio = curl["peakGrowthBytes"] / max(session["peakGrowthBytes"], 1)
    ratios.append(ratio)
    print("%-6d %-27s %-27s %.2f   (%.1f s / %.1f s)" % (
        index + 1, mib(session["peakGrowthBytes"]), mib(curl["peakGrowthBytes"]), ratio, session["seconds"],
        curl["seconds"]))
median = statistics.median(ratios)
print("median ratio (CurlTransport / URLSession): %.2f (limit %.2f)" % (median, limit))
if failed:
    sys.exit("Error: %d calls failed" % failed)
if median > limit:
    sys.exit("Error: CurlTransport's peak RSS growth is %.2f times URLSession's, above %.2f" % (median, limit))
EOF
