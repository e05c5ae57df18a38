# The servers of the integration tests, shared by scripts/test.sh and scripts/mutation-test.sh:
# `source scripts/lib/servers.sh`, then call start_httpbin, start_h2_server and start_fault_server (each exports its
# URL), and stop_servers when done.

# httpbin and gunicorn come from PyPI into a virtualenv under the build folder, pinned to versions known to work.
HTTPBIN_VENV=.build/httpbin-venv
# h2 serves HTTP/2 for scripts/h2_server.py.
HTTPBIN_REQUIREMENTS=("httpbin==0.10.4" "gunicorn==27.0.1" "h2==4.4.1")
HTTPBIN_PID=""
FAULT_PID=""
# The integration suites that run against each transport (NAL_TEST_TRANSPORT=curl for CurlTransport).
TRANSPORT_SUITES="HTTPBinIntegrationTests|ContentCodingTests|FaultServerTests|FaultServerTimeoutTests|HTTPBinStreamingTests|EventStreamIntegrationTests|HTTPBinTransferTests|DownloadSafetyTests|UploadSafetyTests|ConnectionAndCookieTests|CancellationRaceTests|GatedStreamTests|StubListenerTests|StubListenerProtocolTests|ListenerLoopIdleTests|HTTPCacheIntegrationTests"
H2_PID=""
H2_DIR=""
TLS_PID=""

# Foundation keeps HTTPCookieStorage.shared, and each group container's storage, in files under
# $XDG_DATA_HOME/<program>/ (~/.local/share by default), read back by the next process: a cookie one run of the tests
# stored would go out with the next run's requests. Each script that sources this file gets a folder of its own,
# which stop_servers removes; a script started by another shares its parent's.
NAL_DATA_HOME_OWNED=""
if [[ -z "${NAL_DATA_HOME:-}" ]]; then
    # Without it Foundation would fall back to ~/.local/share, silently.
    NAL_DATA_HOME=$(mktemp -d "${TMPDIR:-/tmp}/nal-data-home.XXXXXX") \
        || { echo "Error: no temporary folder for XDG_DATA_HOME" >&2; exit 1; }
    NAL_DATA_HOME_OWNED=1
fi
export NAL_DATA_HOME XDG_DATA_HOME="$NAL_DATA_HOME"

stop_servers() {
    for pid in "$HTTPBIN_PID" "$FAULT_PID" "$H2_PID" "$TLS_PID"; do
        if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
            kill "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
        fi
    done
    if [[ -n "$H2_DIR" ]]; then rm -rf "$H2_DIR"; fi
    if [[ -n "$NAL_DATA_HOME_OWNED" ]]; then rm -rf "$NAL_DATA_HOME"; fi
}

# await_announcement LOG PID WORD [TRIES]: waits up to 10 s (TRIES tenths of a second) for the server PID to print
# "WORD value" into LOG, and prints the value; fails when the server exits or stays silent.
await_announcement() {
    local value
    for _ in $(seq 1 "${4:-100}"); do
        value=$(sed -n "s/^$3 \(.*\)$/\1/p" "$1" | head -1)
        [[ -n "$value" ]] && { echo "$value"; return 0; }
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# The fault server is standard-library Python: it needs no install. It prints `port <n>` once it listens.
start_fault_server() {
    mkdir -p .build
    # Emptied here, before the server starts: the redirect below empties it only once the child runs, and the
    # announcement read meanwhile was the last server's port (a CI rehearsal's sanitizer pass called a closed port).
    : > .build/fault-server.log
    python3 scripts/fault_server.py > .build/fault-server.log 2>&1 &
    FAULT_PID=$!
    local port
    port=$(await_announcement .build/fault-server.log "$FAULT_PID" port) || {
        echo "the fault server did not start; its log:" >&2
        cat .build/fault-server.log >&2 || true
        return 1
    }
    export NAL_FAULT_URL="http://127.0.0.1:$port"
    echo "== fault server on $NAL_FAULT_URL (pid $FAULT_PID)"
}

# httpbin, gunicorn and h2 into the virtualenv, once.
install_server_packages() {
    mkdir -p .build
    "$HTTPBIN_VENV/bin/python" -c "import httpbin, gunicorn, h2" 2>/dev/null && return 0
    echo "== installing ${HTTPBIN_REQUIREMENTS[*]} into $HTTPBIN_VENV"
    python3 -m venv "$HTTPBIN_VENV" || return 1
    "$HTTPBIN_VENV/bin/pip" install --quiet --disable-pip-version-check "${HTTPBIN_REQUIREMENTS[@]}"
}

# An HTTPS server speaking HTTP/2 (scripts/h2_server.py) with a throwaway certificate: NAL_H2_URL and NAL_H2_CA; and
# the same server offering HTTP/1.1 only: NAL_TLS_HTTP1_URL.
start_h2_server() {
    install_server_packages || return 1
    mkdir -p .build
    # A folder of its own for the certificate and the log: another script's server (a mutation run, the sanitizers)
    # must not replace the certificate that a running server presents.
    local dir port http1port ca
    # An absolute path: the mutation script removes it from another folder.
    dir=$(mktemp -d "$PWD/.build/h2-tls.XXXXXX") || return 1
    H2_DIR=$dir
    "$HTTPBIN_VENV/bin/python" scripts/h2_server.py "$dir" > "$dir/server.log" 2>&1 &
    H2_PID=$!
    # The certificate's path is announced after the port: once it is there, both are.
    if ! ca=$(await_announcement "$dir/server.log" "$H2_PID" ca); then
        echo "the HTTP/2 server did not start; its log:" >&2
        cat "$dir/server.log" >&2 || true
        return 1
    fi
    port=$(await_announcement "$dir/server.log" "$H2_PID" port)
    http1port=$(await_announcement "$dir/server.log" "$H2_PID" http1port)
    # By name: the certificate is for localhost, not for 127.0.0.1.
    export NAL_H2_URL="https://localhost:$port" NAL_H2_CA="$ca" NAL_TLS_HTTP1_URL="https://localhost:$http1port"
    echo "== HTTP/2 server on $NAL_H2_URL (pid $H2_PID)"
    start_tls_servers "$dir/tls"
}

# The TLS servers of scripts/tls_server.py (a private CA, another CA, a client-certificate server, a TLS 1.2-only
# one...), with their certificates in DIR: NAL_TLS_DIR. Started with the HTTP/2 server, whose tests they join.
start_tls_servers() {
    python3 scripts/tls_server.py "$1" > "$1.log" 2>&1 &
    TLS_PID=$!
    # Making the certificates takes a few dozen openssl runs: up to 30 s on a loaded machine.
    if ! await_announcement "$1.log" "$TLS_PID" ready 300 > /dev/null; then
        echo "the TLS servers did not start; their log:" >&2
        cat "$1.log" >&2 || true
        return 1
    fi
    export NAL_TLS_DIR="$1"
    echo "== TLS servers with their certificates in $NAL_TLS_DIR (pid $TLS_PID)"
}

start_httpbin() {
    mkdir -p .build
    install_server_packages || return 1
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


# start_test_servers: httpbin and the fault server, unless NAL_HTTPBIN_URL / NAL_FAULT_URL name running ones. With
# CI=true a server that does not start fails (returns 1): a suite whose integration tests are all skipped must not
# pass in CI. Elsewhere their tests are skipped, with a warning.
start_test_servers() {
    local in_ci=false
    [[ "${CI:-}" == "true" || "${CI:-}" == "1" ]] && in_ci=true
    if [[ -z "${NAL_HTTPBIN_URL:-}" ]] && ! start_httpbin; then
        $in_ci && { echo "Error: CI=true and httpbin could not be installed or started" >&2; return 1; }
        echo "warning: httpbin is not available; its tests are skipped" >&2
    fi
    if [[ -z "${NAL_FAULT_URL:-}" ]] && ! start_fault_server; then
        $in_ci && { echo "Error: CI=true and the fault server could not be started" >&2; return 1; }
        echo "warning: no fault server; its tests are skipped" >&2
    fi
    if [[ -z "${NAL_H2_URL:-}" ]] && ! start_h2_server; then
        $in_ci && { echo "Error: CI=true and the HTTP/2 server could not be started" >&2; return 1; }
        echo "warning: no HTTP/2 server; its tests are skipped" >&2
    fi
    return 0
}
