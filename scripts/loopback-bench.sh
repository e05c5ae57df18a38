#!/usr/bin/env bash
# Round trips to a fast local server (scripts/loopback_server.py): NAL's Client, plain URLSession.data(for:) and a
# bare delegate-based data task, in interleaved rounds, sequential and with 100 in flight. Reports median latency,
# throughput and client CPU per call, each with its median per-round ratio against data(for:).
#
#   scripts/loopback-bench.sh                  the full run
#   scripts/loopback-bench.sh --quick          the small variant CI runs (it checks the scenario still works)
#   scripts/loopback-bench.sh --connections 16 any option of `nal-bench loopback`
#   scripts/loopback-bench.sh --separate-cores [--quick | options]
#                                              the server on the last CPU and the benchmark on the others, as a
#                                              server on another machine would be: no contender then loses its
#                                              core to the server, and a thread hand-off wakes a core the process
#                                              already runs on (needs two CPUs and taskset)
#
# Builds the release nal-bench first (a no-op when it is up to date).
set -euo pipefail
cd "$(dirname "$0")/.."

CLIENT_PIN=()
SERVER_PIN=()
if [[ "${1:-}" == "--separate-cores" ]]; then
    shift
    cpus=$(nproc)
    if (( cpus < 2 )) || ! command -v taskset > /dev/null; then
        echo "Error: --separate-cores needs two CPUs or more and taskset (util-linux); this machine has $cpus" >&2
        exit 1
    fi
    SERVER_PIN=(taskset -c "$((cpus - 1))")
    CLIENT_PIN=(taskset -c "0-$((cpus - 2))")
    echo "server on CPU $((cpus - 1)), the benchmark and the curl CLI on CPUs 0-$((cpus - 2))"
fi
ARGS=("$@")
if [[ "${1:-}" == "--quick" ]]; then ARGS=(--rounds 2 --sequential 50 --concurrent 300); fi
source scripts/bench-common.sh
require_bench
start_server loopback_server.py
${CLIENT_PIN[@]+"${CLIENT_PIN[@]}"} "$BENCH" loopback "http://127.0.0.1:$PORT" "${ARGS[@]}"
