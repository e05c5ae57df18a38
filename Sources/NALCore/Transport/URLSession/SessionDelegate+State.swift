import NALLogging

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

extension SessionDelegate {
    /// One call's state, kept under the delegate's lock from its start to its end.
    struct State: Sendable {
        let limit: Int
        let idleTimeout: TimeInterval
        let url: URL?
        let continuation: UnsafeContinuation<Outcome, Never>
        var body = Data()
        /// The 401 or 407 of a declined authentication challenge; the call returns it.
        var challengeResponse: HTTPURLResponse?
        /// When a byte last moved, for the idle timeout.
        var lastActivity: ContinuousClock.Instant
        /// The task, so that the idle timer can cancel it.
        let task: URLSessionTask
        /// Where a download's body goes, or `nil` to keep every body in memory.
        let routing: (any BodyRouting)?
        /// Where this response's body goes, once its first bytes (or its end) have arrived.
        var route: BodyRoute?
        let progress: ProgressReporter?
        /// The failure of the body being streamed (a file that shrank), which explains a failed task.
        let uploadFailure: Locked<NALError?>?
        /// What a streamed body is made of, to send it again when a reused connection turns out closed.
        var uploadSegments: [UploadBodyStream.Segment]?
        /// Where the body goes when the caller streams it; the call then returns at the head.
        let stream: StreamedBody.Writer?
        /// Whether the head of a streamed call has been returned; the body then ends in `stream`.
        var headDelivered = false
        /// Whether a head arrived: libcurl's "Out of memory" before one is a head line past its 100 KiB.
        var receivedHead = false

        /// Whether libcurl's `message` for this call means a head larger than it takes: one line past 100 KiB
        /// (7.88 says "Out of memory"), or heads past 300 KiB (8.3 and patched 7.88: "Too large response headers").
        func headTooLarge(message: String) -> Bool {
            let lowered = message.lowercased()
            return !receivedHead && (lowered.contains("out of memory") || lowered.contains("too large response head"))
        }
    }
}
