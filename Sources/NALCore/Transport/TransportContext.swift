public import Foundation

#if canImport(FoundationNetworking)
    package import FoundationNetworking
#endif

/// What a transport knows about a request besides the `URLRequest` itself.
public struct TransportContext: Sendable {
    /// The caller's target, exactly as passed to `Client.request`, before `endpointMapping`. Middleware checks it
    /// for conformances such as `AccessTokenAuthorizable`. What a mapping changed (headers, parameters, the URL) is
    /// in the prepared `URLRequest` itself.
    public let endpoint: any RemoteService
    /// Whether this is a plain data request, an upload or a download. It comes from the endpoint after mapping.
    public let kind: RequestKind
    /// Per-call options.
    public let options: RequestOptions
    /// When the whole call must have ended (its total timeout), or `nil` when it has no total limit. The Client
    /// enforces it around the whole chain; middleware that waits (a retry's backoff) should not wait past it.
    public let deadline: ContinuousClock.Instant?
    /// Which attempt this is: 1 for the first, 2 for the first retry. Set by retrying middleware, so that inner
    /// middleware, transports and logs can tell a retry from a first attempt.
    public let attempt: Int
    /// Receives the transfer's progress, when the caller asked for it (`Client.transfer(_:)`). Transports report
    /// bytes sent and received to it, tagged with `attempt`; middleware passes it on untouched by passing the context.
    public let progress: TransferProgressHandler?
    /// Whether the caller streams the body (`Client.stream(_:)`): the transport returns as soon as the head has
    /// arrived, with the body in `Response.streamedBody`. A transport that cannot stream returns the whole body in
    /// `data`, and the Client streams it from there. Middleware sees the head; the body flows past it.
    public let streamsBody: Bool
    /// The idle timeout the caller chose for this call, in seconds (`RequestOptions.timeout`, else the endpoint's
    /// `timeout`), or `nil` when it chose none and the transport's own applies.
    ///
    /// The Client also writes it into the request's `timeoutInterval`, but a `URLRequest` cannot say whether its
    /// 60 s are a choice or Foundation's default: this can. A transport takes a request's `timeoutInterval` when it
    /// is not 60 (set by hand, or by a middleware), else this value, else its own.
    public let idleTimeout: TimeInterval?
    /// How long the call waited for its turn before this attempt reached the transport (at `CurlTransport`'s
    /// entrance, see `CallEntrance`), or `nil` when it did not: a transport that makes it wait again for a connection
    /// takes this much off the idle timeout of that wait, so that the two waits together last no longer than one.
    package private(set) var waitedAtEntrance: Duration?

    /// This context for a call that waited `waited` at the entrance (see `waitedAtEntrance`).
    package func waited(_ waited: Duration?) -> TransportContext {
        var context = self
        context.waitedAtEntrance = waited
        return context
    }

    /// Creates a context.
    public init(
        endpoint: any RemoteService, kind: RequestKind = .data, options: RequestOptions = RequestOptions(),
        deadline: ContinuousClock.Instant? = nil, attempt: Int = 1, progress: TransferProgressHandler? = nil,
        streamsBody: Bool = false, idleTimeout: TimeInterval? = nil
    ) {
        self.endpoint = endpoint
        self.kind = kind
        self.options = options
        self.deadline = deadline
        self.attempt = attempt
        self.progress = progress
        self.streamsBody = streamsBody
        self.idleTimeout = idleTimeout
    }

    /// This context for another attempt of the same call.
    public func forAttempt(_ attempt: Int) -> TransportContext {
        TransportContext(
            endpoint: endpoint, kind: kind, options: options, deadline: deadline, attempt: attempt, progress: progress,
            streamsBody: streamsBody, idleTimeout: idleTimeout
        )
        // A later attempt waits afresh; the same attempt (a retry middleware's first) keeps the wait it began.
        .waited(attempt == self.attempt ? waitedAtEntrance : nil)
    }

    /// The idle timeout a transport applies to `request`: its `timeoutInterval` when that is not Foundation's
    /// default of 60 s, else the caller's `idleTimeout` (so that 60 s asked for is 60 s), else `fallback`, the
    /// transport's own.
    ///
    /// - Throws: `InvalidRequestReason.invalidTimeout` for a value that is not a positive number of seconds up to
    ///   `RequestOptions.maximumTimeout`, naming where it came from (`fallbackSetting` for `fallback`).
    package func idleTimeout(
        of request: URLRequest, otherwise fallback: TimeInterval, fallbackSetting: String
    ) throws(NALError) -> TimeInterval {
        if request.timeoutInterval != Self.foundationDefaultTimeout {
            try RequestOptions.validate(request.timeoutInterval, setting: "URLRequest timeoutInterval")
            return request.timeoutInterval
        }
        if let idleTimeout {
            try RequestOptions.validate(idleTimeout, setting: "idle timeout")
            return idleTimeout
        }
        try RequestOptions.validate(fallback, setting: fallbackSetting)
        return fallback
    }

    /// The idle timeout `idleTimeout(of:otherwise:fallbackSetting:)` gives for a context whose `idleTimeout` is
    /// `chosen`, or `nil` where it throws.
    package static func validIdleTimeout(
        of request: URLRequest, chosen: TimeInterval?, otherwise fallback: TimeInterval
    ) -> TimeInterval? {
        let seconds = request.timeoutInterval != foundationDefaultTimeout ? request.timeoutInterval : chosen ?? fallback
        return seconds.isFinite && seconds > 0 && seconds <= RequestOptions.maximumTimeout ? seconds : nil
    }

    /// `URLRequest`'s `timeoutInterval` when nobody set one.
    static let foundationDefaultTimeout: TimeInterval = 60

    /// A progress reporter for this attempt, or `nil` when nobody listens.
    ///
    /// - Parameter deliversAsynchronously: the handler runs on a queue of the reporter's own, not on the thread
    ///   that reports bytes (an event loop); the transport awaits `delivered()` before it returns.
    package func progressReporter(
        totalBytesToSend: Int64? = nil, deliversAsynchronously: Bool = false
    ) -> ProgressReporter? {
        guard case .upload = kind else {
            return ProgressReporter(
                progress, attempt: attempt, measuresUpload: false, deliversAsynchronously: deliversAsynchronously)
        }
        return ProgressReporter(
            progress, attempt: attempt, measuresUpload: true, totalBytesToSend: totalBytesToSend,
            deliversAsynchronously: deliversAsynchronously)
    }
}
