package import Foundation

#if canImport(FoundationNetworking)
    package import FoundationNetworking
#endif

/// Where a `Client`'s call waits, before it runs hooks, middleware or the transport, when the transport would only
/// make it wait further in: `CurlTransport` past an origin's connections.
///
/// A call that waits deep in its transport holds every async frame of its chain (the Client's, each middleware's,
/// the transport's): some 14 KiB. At the entrance it holds only its first frames. The entrance is a saving, never a
/// limit: calls it lets in may outnumber the transport's connections, and it lets every call in when the calls
/// before them do not move on (see `CurlAdmission.starvationLimit`).
///
/// Entering is synchronous, and the waiting is the Client's own `withCheckedContinuation`: every async layer in
/// between would be one more frame held by every waiting call.
package protocol CallEntrance: Sendable {
    /// Lets the call that sends `request` go on (`nil`), or returns the ticket it must wait with (`park`).
    ///
    /// The wait ends with a timeout at the earlier of the call's idle timeout (`idleTimeout`, else the transport's
    /// own) and `deadline`, where it ends with `onDeadline`.
    func ticket(
        for request: URLRequest, idleTimeout: TimeInterval?, deadline: ContinuousClock.Instant?, onDeadline: NALError?
    ) -> CallEntranceTicket?

    /// Waits with `ticket`: `continuation` is resumed with `nil` when the call may go on, with `.cancelled` when it is
    /// withdrawn (`withdraw`) or the transport shuts down, and with its timeout.
    func park(_ ticket: CallEntranceTicket, continuation: CheckedContinuation<NALError?, Never>)

    /// Ends the wait of a call whose task was cancelled; nothing when it no longer waits.
    func withdraw(_ ticket: CallEntranceTicket)

    /// Notes that a call that went past the entrance has ended, whatever its outcome, so that the next may go on.
    func leave(_ request: URLRequest)
}

/// What a call waiting at a `CallEntrance` waits with.
package struct CallEntranceTicket: Sendable {
    package let id: UInt64
    package let url: URL
    package let idleTimeout: Duration
    /// When the wait ends with a timeout: `onDeadline`, or the idle timeout when that is `nil`.
    package let deadline: ContinuousClock.Instant
    package let onDeadline: NALError?

    package init(
        id: UInt64, url: URL, idleTimeout: Duration, deadline: ContinuousClock.Instant, onDeadline: NALError?
    ) {
        self.id = id
        self.url = url
        self.idleTimeout = idleTimeout
        self.deadline = deadline
        self.onDeadline = onDeadline
    }
}

/// A transport with a `CallEntrance`, or one that passes a `Client`'s calls on to such a transport
/// (`MiddlewareChain`).
package protocol CallEntranceProviding: Sendable {
    /// The entrance for this transport's calls, or `nil` when calls need none.
    var callEntrance: (any CallEntrance)? { get }
}
