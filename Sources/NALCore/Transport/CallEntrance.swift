package import Foundation

#if canImport(FoundationNetworking)
    package import FoundationNetworking
#endif

/// Where a `Client`'s call waits, before it runs hooks, middleware or the transport, when the transport would only
/// make it wait further in: `CurlTransport` past an origin's connections.
///
/// A call that waits deep in its transport holds every async frame of its chain (the Client's, each middleware's,
/// the transport's): some 14 KiB. At the entrance it holds only its first frames. The entrance saves memory and never
/// limits the transport's work: calls it lets in may outnumber the transport's connections, and it lets every call
/// in when the line behind it stops moving (see `CurlAdmission.starvationLimit`). A call a middleware would answer
/// without the transport (a cache hit) waits there too, since the entrance comes before the middleware.
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

    /// Notes that a call that went past the entrance has ended, whatever its outcome, so that the next may go on;
    /// `afterWaiting`: it had waited at the entrance, so its end shows the calls let in are moving.
    func leave(_ request: URLRequest, afterWaiting: Bool)
}
