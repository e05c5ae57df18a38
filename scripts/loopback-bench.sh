#!/usr/bin/env bash
# Round trips to a fast local server (scripts/loopback_server.py): NAL's Client, plain URLSession.data(for:) and a
# bare delegate-based data task, in interleaved rounds, sequential and with 100 in flight. Reports median latency,
# throughput, and CPU per call (sequential and in flight), each with its median per-round ratio against data(for:).
#
#   scripts/loopback-bench.sh                  the full run
#   scripts/loopback-bench.sh --quick          the small variant CI runs (it checks the scenario still works)
#   scripts/loopback-bench.sh --connections 16 any option of `nal-bench loopback`
#   scripts/loopback-bench.sh --separate-cores [--quick | options]
#                                              the server on the last CPU this process may use, the benchmark and
#                                              the curl CLI on the others: no contender loses a core to the server.
#                                              On two CPUs that also confines the client, its event loop included, to
#                                              one core, where a thread hand-off wakes a core already awake; a
#                                              multi-core client of a remote server would still pay cross-core
#                                              wake-ups (needs two CPUs and taskset)
#
# Builds the release nal-bench first (a no-op when it is up to date).
set -euo pipefail
cd "$(dirname "$0")/.."

# The CPUs this process may run on (its affinity, which a cgroup's cpuset narrows), one per line.
allowed_cpus() {
    local list part
    list=$(taskset -pc $$ | sed 's/.*: //')
    for part in ${list//,/ }; do
        if [[ $part == *-* ]]; then seq "${part%-*}" "${part#*-}"; else echo "$part"; fi
    done
}

ARGS=()
separate=false
for argument in "$@"; do
    if [[ $argument == --separate-cores ]]; then separate=true; else ARGS+=("$argument"); fi
done
CLIENT_PIN=()
SERVER_PIN=()
if $separate; then
    command -v taskset > /dev/null || { echo "Error: --separate-cores needs taskset (util-linux)" >&2; exit 1; }
    mapfile -t cpus < <(allowed_cpus)
    if (( ${#cpus[@]} < 2 )); then
        echo "Error: --separate-cores needs two CPUs or more; this process may use ${#cpus[@]}" >&2
        exit 1
    fi
    server_cpu=${cpus[-1]}
    client_cpus=$(IFS=,; echo "${cpus[*]:0:${#cpus[@]}-1}")
    SERVER_PIN=(taskset -c "$server_cpu")
    CLIENT_PIN=(taskset -c "$client_cpus")
    echo "server on CPU $server_cpu, the benchmark and the curl CLI on CPUs $client_cpus"
fi
if [[ "${ARGS[0]:-}" == "--quick" ]]; then ARGS=(--rounds 2 --sequential 50 --concurrent 300); fi
source scripts/bench-common.sh
require_bench
start_server loopback_server.py
${CLIENT_PIN[@]+"${CLIENT_PIN[@]}"} "$BENCH" loopback "http://127.0.0.1:$PORT" "${ARGS[@]}"
