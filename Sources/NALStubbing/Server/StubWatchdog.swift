import NALCore
import NALLogging

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// Ends a plain client's request with `URLError(.timedOut)` when it outlasts its timeouts, as URLSession's own
/// timer would for a request on the network; a URLProtocol's requests have no such timer.
final class StubWatchdog: Sendable {
    private let output: ProtocolOutput
    private let url: URL?
    private let idle: TimeInterval
    private let total: TimeInterval
    private let timers = Locked<[DeadlineTimer]>([])

    init(_ output: ProtocolOutput, url: URL?, idle: TimeInterval, total: TimeInterval) {
        self.output = output
        self.url = url
        self.idle = idle
        self.total = total
    }

    /// Starts the timers; when one fires, the request fails and `task` is cancelled. `DeadlineTimer`, not a
    /// sleeping task: almost every timer is cancelled, and a cancelled sleep keeps its memory until its deadline.
    func arm(cancelling task: Task<Void, Never>) {
        var timers: [DeadlineTimer] = []
        for (seconds, untilResponse) in [(idle, true), (total, false)]
        where seconds.isFinite && seconds > 0 && seconds <= RequestOptions.maximumTimeout {
            timers.append(
                DeadlineTimer(.now + .milliseconds(Int64((seconds * 1000).rounded(.up)))) { [output, url] in
                    guard !untilResponse || !output.hasResponse else { return }
                    var userInfo: [String: Any] = [
                        NSLocalizedDescriptionKey: "the stubbed request timed out after \(seconds) s"
                    ]
                    if let url { userInfo[NSURLErrorFailingURLErrorKey] = url }
                    output.fail(URLError(.timedOut, userInfo: userInfo))
                    task.cancel()
                })
        }
        self.timers.withLock { $0 += timers }
    }

    /// Stops the timers: the request has ended.
    func disarm() {
        for timer in timers.withLock({ $0 }) { timer.cancel() }
    }
}
