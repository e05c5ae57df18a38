public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// Sends a prepared request and returns the whole response. `URLSessionTransport` talks to the network; middleware
/// wraps a transport; stubbing provides transports that answer from memory.
///
/// A transport returns every response it receives, whatever its status code: validation is the Client's job.
public protocol Transport: Sendable {
    /// Sends `request` and returns its response. `context` says which endpoint it came from and how to send it.
    func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response
}

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
            streamsBody: streamsBody, idleTimeout: idleTimeout)
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

    /// `URLRequest`'s `timeoutInterval` when nobody set one.
    static let foundationDefaultTimeout: TimeInterval = 60

    /// A progress reporter for this attempt, or `nil` when nobody listens.
    package func progressReporter(totalBytesToSend: Int64? = nil) -> ProgressReporter? {
        guard case .upload = kind else {
            return ProgressReporter(progress, attempt: attempt, measuresUpload: false)
        }
        return ProgressReporter(progress, attempt: attempt, measuresUpload: true, totalBytesToSend: totalBytesToSend)
    }
}

/// How a request's body travels.
public enum RequestKind: Sendable {
    /// The body, if any, is in the `URLRequest`; the response body is kept in memory.
    case data
    /// The body comes from this source.
    case upload(UploadSource)
    /// The response body goes to a file.
    case download(DownloadDestination)
}

/// Where an upload's body comes from.
public enum UploadSource: Sendable {
    /// Bytes in memory.
    case data(Data)
    /// A file's contents.
    case file(URL)
    /// A `multipart/form-data` body made of these parts.
    case multipart([MultipartFormBodyPart])
}

/// Options for one call.
public struct RequestOptions: Sendable {
    /// The largest timeout NAL accepts, in seconds: 7 days. Larger values, NaN and infinity are refused with
    /// `InvalidRequestReason.invalidTimeout` (FoundationNetworking crashes on them).
    public static let maximumTimeout: TimeInterval = 7 * 24 * 3600

    /// The idle timeout for this call in seconds, overriding the endpoint's `timeout`: the call fails with
    /// `NALError.timedOut` when nothing is sent or received for this long. Millisecond precision.
    public var timeout: TimeInterval?
    /// The total timeout for this call in seconds, overriding the endpoint's `totalTimeout`: the whole call,
    /// middleware and retries included, must end within it.
    public var totalTimeout: TimeInterval?
    /// The most bytes of body to keep in memory for this call, overriding the transport's limit; keep it below what
    /// the process may use, as that limit's documentation says.
    public var maximumResponseSize: Int?

    /// Creates options; `nil` keeps the endpoint's or transport's setting.
    public init(timeout: TimeInterval? = nil, totalTimeout: TimeInterval? = nil, maximumResponseSize: Int? = nil) {
        self.timeout = timeout
        self.totalTimeout = totalTimeout
        self.maximumResponseSize = maximumResponseSize
    }

    /// Throws `InvalidRequestReason.invalidTimeout` unless `value` is `nil` or a finite number of seconds in
    /// `0 < value <= maximumTimeout`.
    static func validate(_ value: TimeInterval?, setting: String) throws(NALError) {
        guard let value else { return }
        guard value.isFinite, value > 0, value <= maximumTimeout else {
            throw .invalidRequest(.invalidTimeout(setting: setting, value: value))
        }
    }
}

extension RequestType {
    /// How a request of this type travels.
    public var kind: RequestKind {
        switch self {
        case .uploadData(let data): .upload(.data(data))
        case .uploadFile(let url): .upload(.file(url))
        case .uploadMultipart(let parts), .uploadCompositeMultipart(let parts, _): .upload(.multipart(parts))
        case .download(let destination), .downloadParameters(_, _, let destination): .download(destination)
        case .plain, .data, .jsonEncodable, .customJSONEncodable, .parameters, .compositeData, .compositeParameters,
            .encodableQuery, .formEncodable:
            .data
        }
    }
}
