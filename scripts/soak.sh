#!/usr/bin/env bash
# A soak: mixed traffic through one Client with token refresh, retry and logging middleware (data calls, uploads,
# multipart forms, downloads, progress streams, event streams resumed after drops, streamed bodies left halfway,
# broken bodies, cancellations at random moments) against the fault server, for MINUTES. Reports calls and how they
# ended, peak RSS by fifth of the run, and open file descriptors and threads. Bounds: no lost call (each ends with a
# response or a typed error); NAL's own heap blocks left live per call under 0.5 more than a bare URLSession's
# (measured in the same run: FoundationNetworking itself keeps about 4 blocks per request on Linux, so RSS grows
# slowly whatever runs over it); descriptors and threads back to their warm-up values at the end (within 8, what a
# connection pool and dispatch keep); every call that failed did so with a NALError. Over CurlTransport (nothing of
# FoundationNetworking underneath) NAL's heap blocks count whole, and RSS must stay flat: the last fifth's peak less
# than 10 % above the first fifth's. A bound that cannot be measured here fails the run.
#
#   scripts/soak.sh [MINUTES]          1 by default (what CI runs); the closing notes report 30
#   NAL_SOAK_CONCURRENCY=N             workers making calls at once (8 by default)
#   NAL_SOAK_CALL_DEADLINE_MS=N        a call not ended after N ms is lost (120000 by default; 1 shows the bound fail)
#   NAL_SOAK_TRANSPORT=curl            the client runs over CurlTransport, and RSS is gated flat (CI runs both)
#   NAL_SOAK_GATE_RSS=1                gates RSS flat over URLSessionTransport too (FoundationNetworking's own leak of
#                                      about 4 blocks per request makes it grow)
#
# A call that never ends is counted lost after its deadline, and the whole run is killed 10 minutes after its time
# (exit 124), so that a hang fails instead of stalling CI.
#
# Builds the release nal-bench first (a no-op when it is up to date). Exits 1 if a bound is broken.
set -euo pipefail
cd "$(dirname "$0")/.."
MINUTES=${1:-1}
source scripts/bench-common.sh
require_bench
start_server fault_server.py
echo "== soak: $MINUTES min, ${NAL_SOAK_CONCURRENCY:-8} workers, ${NAL_SOAK_TRANSPORT:-urlsession} transport, against the fault server on port $PORT"
status=0
timeout --kill-after=10 $((MINUTES * 60 + 600)) \
    "$BENCH" soak "http://127.0.0.1:$PORT" --seconds $((MINUTES * 60)) --concurrency "${NAL_SOAK_CONCURRENCY:-8}" \
    || status=$?
[[ $status == 124 ]] && echo "soak: FAIL, still running 10 minutes after its time (a hang)" >&2
[[ $status == 137 ]] && echo "soak: FAIL, killed (a hang that ignored SIGTERM, or out of memory)" >&2
exit $status
