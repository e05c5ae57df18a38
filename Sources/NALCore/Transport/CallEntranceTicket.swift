package import Foundation

/// What a call waiting at a `CallEntrance` waits with.
package struct CallEntranceTicket: Sendable {
    package let id: UInt64
    package let url: URL
    package let idleTimeout: Duration
    /// When the wait ends with a timeout: `onDeadline`, or the idle timeout when that is `nil`.
    package let deadline: ContinuousClock.Instant
    package let onDeadline: NALError?
    /// When the call began to wait.
    package let since: ContinuousClock.Instant

    package init(
        id: UInt64, url: URL, idleTimeout: Duration, deadline: ContinuousClock.Instant, onDeadline: NALError?,
        since: ContinuousClock.Instant
    ) {
        self.id = id
        self.url = url
        self.idleTimeout = idleTimeout
        self.deadline = deadline
        self.onDeadline = onDeadline
        self.since = since
    }
}
