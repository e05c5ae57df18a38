package import Foundation
import NALCommandLine
import NALCore
import NALMiddleware
import NALStubbing

/// One fuzz target: a name (its corpus folder under `Fuzz/Corpus`) and the properties it checks on any input.
package struct FuzzTarget: Sendable {
    package let name: String
    /// Throws a `FuzzFailure` naming the property that broke.
    package let check: @Sendable (Data) throws -> Void
}

/// Every parser NAL runs on untrusted text, with the properties that must hold for any input. A target whose check
/// reaches unsafe pointers also goes in `needs_asan` of `scripts/fuzz.sh`, which then never runs it without ASan.
package enum FuzzTargets {
    package static let all: [FuzzTarget] = [
        FuzzTarget(name: "tail", check: { try StubbingFuzzChecks.tail($0) }),
        FuzzTarget(name: "har", check: { try StubbingFuzzChecks.har($0) }),
        FuzzTarget(name: "json-syntax", check: { try StubbingFuzzChecks.jsonSyntax($0) }),
        FuzzTarget(name: "form", check: { try StubbingFuzzChecks.form($0) }),
        FuzzTarget(name: "request-parser", check: { try ListenerFuzzChecks.requestParser($0) }),
        FuzzTarget(name: "retry-after", check: { try MiddlewareFuzzChecks.retryAfter($0) }),
        FuzzTarget(name: "cache-fields", check: { try MiddlewareFuzzChecks.cacheFields($0) }),
        FuzzTarget(name: "cache-entry", check: { try MiddlewareFuzzChecks.cacheEntry($0) }),
        FuzzTarget(name: "content-range", check: { try CoreFuzzChecks.contentRange($0) }),
        FuzzTarget(name: "content-disposition", check: { try CoreFuzzChecks.contentDisposition($0) }),
        FuzzTarget(name: "link", check: { try CoreFuzzChecks.links($0) }),
        FuzzTarget(name: "server-sent-events", check: { try CoreFuzzChecks.serverSentEvents($0) }),
        FuzzTarget(name: "header-value", check: { try CoreFuzzChecks.headerValue($0) }),
        FuzzTarget(name: "response-head", check: { try CoreFuzzChecks.responseHead($0) }),
        FuzzTarget(name: "encoders", check: { try CoreFuzzChecks.encoders($0) }),
        FuzzTarget(name: "multipart", check: { try CoreFuzzChecks.multipart($0) }),
        FuzzTarget(name: "redaction", check: { try CoreFuzzChecks.redaction($0) }),
        FuzzTarget(name: "cli-arguments", check: { try CommandLineFuzzChecks.arguments($0) }),
    ]

    /// The target named `name`.
    package static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }
}
