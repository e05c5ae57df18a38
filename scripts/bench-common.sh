# Shared by the measurement scripts: `source scripts/bench-common.sh`, then call the functions below.

# Sets BENCH to the release nal-bench, built from the sources first, or exits when it does not build.
require_bench() {
    # Built here, so that no script measures a nal-bench older than the sources; seconds when it is up to date.
    swift build -c release --product nal-bench > /dev/null 2>&1 \
        || { echo "Error: nal-bench does not build: swift build -c release --product nal-bench" >&2; exit 1; }
    BENCH="$(swift build -c release --show-bin-path)/nal-bench"
}

# start_server SCRIPT: runs a standard-library Python server of scripts/ on a free port, sets PORT, and stops it
# (and removes WORK, when set) when the calling script exits. SERVER_PIN, when set, is a command the server runs
# under (`taskset -c 1`).
start_server() {
    SERVER_LOG=$(mktemp)
    ${SERVER_PIN[@]+"${SERVER_PIN[@]}"} python3 "scripts/$1" > "$SERVER_LOG" 2>&1 &
    SERVER=$!
    trap 'kill $SERVER 2>/dev/null || true; rm -f "$SERVER_LOG"; [[ -n "${WORK:-}" ]] && rm -rf "$WORK"' EXIT
    for _ in $(seq 1 50); do
        PORT=$(sed -n 's/^port \([0-9]*\)$/\1/p' "$SERVER_LOG")
        [[ -n "$PORT" ]] && break
        sleep 0.1
    done
    [[ -n "${PORT:-}" ]] || { echo "Error: scripts/$1 did not start" >&2; exit 1; }
}
