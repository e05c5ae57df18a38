#!/usr/bin/env bash
# Runs NAL's whole test suite on a fresh machine: unit, CLI and integration tests (against a local httpbin), then
# the allocation gate of the benchmarks. This is the README's test command, and what CI (.ci/run) runs.
#
#   NAL_SKIP_BENCH=1     skip the release build and allocation gate while iterating locally
#   NAL_HTTPBIN_URL=...  use an httpbin that is already running instead of starting one
#
# With CI=true, an httpbin that cannot be installed or started fails the run; elsewhere the integration tests are
# skipped and say so.
set -euo pipefail
cd "$(dirname "$0")/.."

is_ci() { [[ "${CI:-}" == "true" || "${CI:-}" == "1" ]]; }

# httpbin and gunicorn come from PyPI into a virtualenv under the build folder, pinned to versions known to work.
HTTPBIN_VENV=.build/httpbin-venv
HTTPBIN_REQUIREMENTS=("httpbin==0.10.4" "gunicorn==27.0.1")
HTTPBIN_PID=""

stop_httpbin() {
    if [[ -n "$HTTPBIN_PID" ]] && kill -0 "$HTTPBIN_PID" 2>/dev/null; then
        kill "$HTTPBIN_PID" 2>/dev/null || true
        wait "$HTTPBIN_PID" 2>/dev/null || true
    fi
}
trap stop_httpbin EXIT

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

echo "== build (debug, with tests)"
swift build --build-tests

echo "== tests"
swift test --skip-build

if [[ "${NAL_SKIP_BENCH:-0}" == "1" ]]; then
    echo "== benchmarks: skipped (NAL_SKIP_BENCH=1)"
    exit 0
fi

echo "== benchmark allocation gate (release)"
swift build -c release --product nal-bench
"$(swift build -c release --show-bin-path)/nal-bench" --quick --check
