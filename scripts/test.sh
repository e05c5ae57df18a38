#!/usr/bin/env bash
# Runs NAL's whole test suite on a fresh machine: unit, CLI and integration tests (against a local httpbin and the
# raw-socket fault server in scripts/fault_server.py), then the allocation gate of the benchmarks. This is the
# README's test command, and what CI (.ci/run) runs.
#
#   NAL_SKIP_BENCH=1     skip the release build and allocation gate while iterating locally
#   NAL_HTTPBIN_URL=...  use an httpbin that is already running instead of starting one
#   NAL_FAULT_URL=...    use a fault server that is already running instead of starting one
#   NAL_TRANSFER_TEST_BYTES=n  the size of the big upload and download tests (default 1 GiB)
#
# With CI=true, a server that cannot be installed or started fails the run; elsewhere the integration tests that
# need it are skipped and say so.
set -euo pipefail
cd "$(dirname "$0")/.."

is_ci() { [[ "${CI:-}" == "true" || "${CI:-}" == "1" ]]; }

# httpbin and gunicorn come from PyPI into a virtualenv under the build folder, pinned to versions known to work.
HTTPBIN_VENV=.build/httpbin-venv
HTTPBIN_REQUIREMENTS=("httpbin==0.10.4" "gunicorn==27.0.1")
HTTPBIN_PID=""
FAULT_PID=""

stop_servers() {
    for pid in "$HTTPBIN_PID" "$FAULT_PID"; do
        if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
            kill "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
        fi
    done
}
trap stop_servers EXIT

# The fault server is standard-library Python: it needs no install. It prints `port <n>` once it listens.
start_fault_server() {
    mkdir -p .build
    python3 scripts/fault_server.py > .build/fault-server.log 2>&1 &
    FAULT_PID=$!
    for _ in $(seq 1 50); do
        local port
        port=$(sed -n 's/^port \([0-9]*\)$/\1/p' .build/fault-server.log)
        if [[ -n "$port" ]]; then
            export NAL_FAULT_URL="http://127.0.0.1:$port"
            echo "== fault server on $NAL_FAULT_URL (pid $FAULT_PID)"
            return 0
        fi
        kill -0 "$FAULT_PID" 2>/dev/null || break
        sleep 0.1
    done
    echo "the fault server did not start; its log:" >&2
    cat .build/fault-server.log >&2 || true
    return 1
}

start_httpbin() {
    mkdir -p .build
    if ! "$HTTPBIN_VENV/bin/python" -c "import httpbin, gunicorn" 2>/dev/null; then
        echo "== installing ${HTTPBIN_REQUIREMENTS[*]} into $HTTPBIN_VENV"
        python3 -m venv "$HTTPBIN_VENV" || return 1
        "$HTTPBIN_VENV/bin/pip" install --quiet --disable-pip-version-check "${HTTPBIN_REQUIREMENTS[@]}" || return 1
    fi
    local port
    port=$("$HTTPBIN_VENV/bin/python" -c \
        'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()') || return 1
    # gthread workers: /delay and /drip hold a thread, and 100 concurrent requests must not queue behind them.
    "$HTTPBIN_VENV/bin/gunicorn" --bind "127.0.0.1:$port" --workers 2 --worker-class gthread --threads 32 \
        --control-socket ".build/httpbin-$port.ctl" --log-level warning httpbin:app > .build/httpbin.log 2>&1 &
    HTTPBIN_PID=$!
    for _ in $(seq 1 100); do
        if "$HTTPBIN_VENV/bin/python" -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/get', timeout=1)" 2>/dev/null; then
            export NAL_HTTPBIN_URL="http://127.0.0.1:$port"
            echo "== httpbin on $NAL_HTTPBIN_URL (pid $HTTPBIN_PID)"
            return 0
        fi
        kill -0 "$HTTPBIN_PID" 2>/dev/null || break
        sleep 0.2
    done
    echo "httpbin did not start; its log:" >&2
    cat .build/httpbin.log >&2 || true
    return 1
}

if [[ -z "${NAL_HTTPBIN_URL:-}" ]]; then
    if ! start_httpbin; then
        if is_ci; then
            echo "Error: CI=true and httpbin could not be installed or started; integration tests cannot run." >&2
            exit 1
        fi
        echo "warning: httpbin is not available; integration tests will be skipped." >&2
    fi
fi

if [[ -z "${NAL_FAULT_URL:-}" ]]; then
    if ! start_fault_server; then
        if is_ci; then
            echo "Error: CI=true and the fault server could not be started; fault tests cannot run." >&2
            exit 1
        fi
        echo "warning: the fault server is not available; fault tests will be skipped." >&2
    fi
fi

echo "== build (debug, with tests)"
swift build --build-tests

# Three passes, so that heavy work never runs beside the timing checks: the CLI tests start about a hundred
# processes (nal-cli, and nal-bench running benchmarks), and the big transfers keep both cores and the disk busy.
echo "== tests"
swift test --skip-build --skip NALCLITests

echo "== command-line tests (nal-cli and nal-bench as processes)"
swift test --skip-build --filter NALCLITests

# The big transfers (1 GiB uploads and downloads, resumes) saturate both cores and the disk for a while, which would
# upset the timing of every test running beside them, so they have a pass of their own.
echo "== big transfers (1 GiB uploads and downloads checked by SHA-256, resumes, bad files)"
NAL_BIG_TRANSFERS=1 swift test --skip-build --filter "FaultServerTransferTests"

if [[ "${NAL_SKIP_BENCH:-0}" == "1" ]]; then
    echo "== benchmarks: skipped (NAL_SKIP_BENCH=1)"
    exit 0
fi

echo "== benchmark allocation gate (release)"
swift build -c release --product nal-bench
"$(swift build -c release --show-bin-path)/nal-bench" --quick --check

# The heavy measurements have documented scripts; their small variants run here so that they cannot rot.
echo "== memory bounds (small variant; scripts/memory-bounds.sh for the full one)"
scripts/memory-bounds.sh --quick
echo "== loopback round trips (small variant; scripts/loopback-bench.sh for the full one)"
scripts/loopback-bench.sh --quick
echo "== big transfers: memory and throughput (small variant; scripts/transfer-bench.sh for the full one)"
scripts/transfer-bench.sh --quick
