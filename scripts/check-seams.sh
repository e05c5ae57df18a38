#!/usr/bin/env bash
# Checks the boundary between NALCore and the modules above it. NALCore's `package` types are visible to every
# module of the package, so nothing but this check stops another module from leaning on them. Each module may use
# only the package types listed for it here, each for the reason given; a new use fails until it is added, with its
# reason, in a reviewed change (StubSessionSeam's documentation lists the same). It checks package *types*; package
# members of public types (`SensitiveData.redacting(json:)`, `HTTPHeaders.dictionary`, `RedirectPolicy.nextRequest`)
# and free package functions share names with too much else for a text search to tell, and are not checked.
#
#   scripts/check-seams.sh     exits 1, naming the module and the type, when a module uses an unlisted type
set -euo pipefail
cd "$(dirname "$0")/.."

# Module folder: the NALCore package types its module may use.
declare -A allowed=(
    # Middleware sees requests, responses and streamed bodies through public API only. SettingClamp: a bad numeric
    # setting of an initialiser is clamped and warned about the same way in every module. CallEntrance,
    # CallEntranceProviding: a chain hands its transport's entrance to the Client, so that calls wait before any
    # middleware runs.
    [Sources/NALMiddleware]="SettingClamp CallEntrance CallEntranceProviding"
    # StubSessionSeam, StubSessionProtocol: the stub server inside URLSessionTransport's session (the seam).
    # DownloadJob, ProgressReporter, MultipartEncoder, FileAccess: StubTransport is a second Transport and runs
    # stubbed downloads, uploads and progress through the same machinery as URLSessionTransport, so that a stubbed
    # transfer behaves as a real one. DisplayText: URLs in messages, shortened and redacted as NALCore shows them.
    # DeadlineTimer: a stubbed request's timeouts, on a timer whose cancellation frees it at once. SettingClamp: a bad
    # numeric setting of an initialiser or factory is clamped and warned about as in NALCore.
    [Sources/NALStubbing]="StubSessionSeam StubSessionProtocol DownloadJob ProgressReporter MultipartEncoder FileAccess DisplayText DeadlineTimer SettingClamp"
    # Nothing: the command line uses the modules' public API, as a user's program would.
    [Sources/NALCommandLine]=""
    # Nothing: the executable only calls NALCommandLine.
    [Sources/nal-cli]=""
    # The parsers the fuzz targets check, which live outside the shipped modules (Fuzz/Targets/Checks) and reach
    # them as package API: Content-Range, CurlTransport's head parser and the head it makes (ResponseHead,
    # LazyHTTPResponse, which bounds what Foundation parses), multipart written and read back.
    [Fuzz/Targets]="ContentRange CurlHead LazyHTTPResponse MultipartEncoder MultipartReader ResponseHead"
    # Nothing: benchmarks measure what users call (CurlTransport is public).
    [Benchmarks/nal-bench]=""
    # Nothing: NAL's own declarations of libcurl's C functions, below NALCore.
    [Sources/CCurl]=""
)

# Package types, nested ones and typealiases included, with or without attributes (`@usableFromInline package`).
mapfile -t packageTypes < <(
    grep -rhoE "^\s*(@[A-Za-z]+ )*package (final )?(struct|enum|class|protocol|actor|typealias) [A-Za-z_][A-Za-z0-9_]*" \
        Sources/NALCore | awk '{print $NF}' | sort -u
)
[[ ${#packageTypes[@]} -gt 0 ]] || { echo "error: found no package type in Sources/NALCore; is this the repository?" >&2; exit 1; }
status=0
# Every module above NALCore must be listed (NALLogging and NALSupport sit below it and cannot see it).
for folder in Sources/*/ Fuzz/Targets/ Benchmarks/nal-bench/; do
    folder=${folder%/}
    [[ $folder == Sources/NALCore || $folder == Sources/NALLogging || $folder == Sources/NALSupport ]] && continue
    if [[ ! -v "allowed[$folder]" ]]; then
        echo "error: $folder is not listed in scripts/check-seams.sh; list the NALCore package types it may use" >&2
        status=1
    fi
done
for folder in "${!allowed[@]}"; do
    [[ -d "$folder" ]] || { echo "error: scripts/check-seams.sh lists $folder, which is missing" >&2; status=1; continue; }
    for type in "${packageTypes[@]}"; do
        # Code only: a type named in a comment is not a use.
        grep -rhw --include='*.swift' "$type" "$folder" | grep -qvE "^\s*//" || continue
        if [[ " ${allowed[$folder]} " != *" $type "* ]]; then
            echo "error: $folder uses NALCore's package type $type, which scripts/check-seams.sh does not list for it:" >&2
            grep -rnw --include='*.swift' "$type" "$folder" | grep -vE ":\s*//" | head -3 >&2
            status=1
        fi
    done
done
[[ $status == 0 ]] && echo "seams: every module uses only the NALCore package types listed for it (${#packageTypes[@]} types checked)"
exit $status
