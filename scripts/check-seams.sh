#!/usr/bin/env bash
# Checks the boundary between NALCore and the modules above it. NALCore's `package` types are visible to every
# module of the package, so nothing but this check stops another module from leaning on them. Each module may use
# only the package types listed for it here, each for the reason given; a new use fails until it is added, with its
# reason, in a reviewed change (StubSessionSeam's documentation lists the same).
#
#   scripts/check-seams.sh     exits 1, naming the module and the type, when a module uses an unlisted type
set -euo pipefail
cd "$(dirname "$0")/.."

# Module: the NALCore package types it may use.
declare -A allowed=(
    # Nothing: middleware sees requests, responses and streamed bodies through public API only.
    [NALMiddleware]=""
    # StubSessionSeam, StubSessionProtocol: the stub server inside URLSessionTransport's session (the seam).
    # DownloadJob, ProgressReporter, MultipartEncoder, FileAccess: StubTransport is a second Transport and runs
    # stubbed downloads, uploads and progress through the same machinery as URLSessionTransport, so that a stubbed
    # transfer behaves as a real one. DisplayText: URLs in messages, shortened and redacted as NALCore shows them.
    [NALStubbing]="StubSessionSeam StubSessionProtocol DownloadJob ProgressReporter MultipartEncoder FileAccess DisplayText"
    # Nothing: the command line uses the modules' public API, as a user's program would.
    [NALCommandLine]=""
)

mapfile -t packageTypes < <(
    grep -rhoE "^package (final )?(struct|enum|class|protocol|actor) [A-Za-z_]+" Sources/NALCore | awk '{print $NF}' | sort -u
)
status=0
for module in "${!allowed[@]}"; do
    for type in "${packageTypes[@]}"; do
        grep -rqw --include='*.swift' "$type" "Sources/$module" || continue
        if [[ " ${allowed[$module]} " != *" $type "* ]]; then
            echo "error: $module uses NALCore's package type $type, which scripts/check-seams.sh does not list for it:" >&2
            grep -rnw --include='*.swift' "$type" "Sources/$module" | head -3 >&2
            status=1
        fi
    done
done
[[ $status == 0 ]] && echo "seams: every module uses only the NALCore package types listed for it"
exit $status
