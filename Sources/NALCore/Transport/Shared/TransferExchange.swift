import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the exchanges of one call share, whichever transport sends them: the in-memory limit, the idle timeout,
/// whether the caller streams the body, the progress reporter, and where a download's body goes.
struct TransferExchange {
    let limit: Int
    let idleTimeout: TimeInterval
    var streamsBody = false
    let progress: ProgressReporter?
    var routing: (any BodyRouting)?
    /// How long the call waited before it reached the transport (`TransportContext.waitedAtEntrance`): its first
    /// wait for a connection is that much shorter than the idle timeout. `nil` once it has reached one.
    /// A download's is `nil`: its later attempts (resuming after a cut) would take it off too.
    var waitedAtEntrance: Duration?
    /// Whether the call waited at the entrance, downloads too: its arrival in the line for a connection shows the
    /// calls let in are moving (`CurlAdmission.noteProgress`). `false` once it has reached one.
    var letInAtEntrance = false
}
