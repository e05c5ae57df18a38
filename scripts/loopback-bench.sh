#!/usr/bin/env bash
# Round trips to a fast local server (scripts/loopback_server.py): NAL's Client, plain URLSession.data(for:) and a
# bare delegate-based data task, in interleaved rounds, sequential and with 100 in flight. Reports median latency,
# throughput and client CPU per call, each with its median per-round ratio against data(for:).
#
#   scripts/loopback-bench.sh                  the full run
#   scripts/loopback-bench.sh --quick          the small variant CI runs (it checks the scenario still works)
#   scripts/loopback-bench.sh --connections 16 any option of `nal-bench loopback`
#
# Builds the release nal-bench first (a no-op when it is up to date).
set -euo pipefail
cd "$(dirname "$0")/.."

ARGS=("$@")
if [[ "${1:-}" == "--quick" ]]; then ARGS=(--rounds 2 --sequential 50 --concurrent 300); fi
source scripts/bench-common.sh
require_bench
start_server loopback_server.py
"$BENCH" loopback "http://127.0.0.1:$PORT" "${ARGS[@]}"
