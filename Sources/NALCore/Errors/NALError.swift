public import Foundation

/// The one error type that NAL's APIs throw.
///
/// Each case carries enough context to say what went wrong and where; `description` renders it as a sentence a
/// person can act on.
public indirect enum NALError: Error, Sendable {
    /// The endpoint could not be turned into a valid `URLRequest`.
    case invalidRequest(InvalidRequestReason)
    /// Parameters or a body could not be encoded.
    case encoding(EncodingFailureReason)
    /// The transport failed before a complete response arrived; the `URLError` says how (`.code`, failing URL).
    case transport(URLError)
    /// A TLS check failed: an untrusted chain, a pin mismatch, no common protocol version, a client certificate
    /// asked for or refused, or a file of the `TLSConfiguration` that cannot be used. `TLSFailure.check` says which.
    case tls(TLSFailure)
    /// The transport cannot work on this machine, and says why: `CurlTransport` when libcurl cannot be loaded.
    case transportUnavailable(String)
    /// The response's status code is not accepted by the endpoint's `validation`. The whole response is kept.
    case unacceptableStatusCode(Response)
    /// The body could not be decoded into the requested type. The whole response is kept.
    case decoding(DecodingFailure)
    /// The call was cancelled: its Swift `Task` or its `Cancellable` was cancelled.
    case cancelled
    /// A streamed body was read by two tasks at once. A stream has one consumer: the task already waiting keeps
    /// reading, the second gets this error at once.
    case streamAlreadyBeingRead
    /// A time limit ran out: no data for the idle timeout, or the whole call took longer than the total timeout.
    case timedOut(TimeoutFailure)
    /// The body grew past the transport's in-memory limit; the download was stopped there.
    case responseTooLarge(limit: Int, url: URL?)
    /// A file of an upload or download could not be read or written: missing, a directory, read-only, or the disk
    /// is full. Nothing is left behind: no partial file remains unless the destination keeps it for resuming.
    case file(FileFailure)
    /// A client hook (such as `willSend`) threw an error that is not an `NALError`.
    case hookFailed(any Error)
    /// A middleware threw an error that is not an `NALError`. `middleware` names its type.
    case middlewareFailed(middleware: String, underlying: any Error)
    /// Refreshing an access token failed. `response` is the response that asked for the refresh (such as a 401),
    /// or `nil` for a request that was waiting for the refresh before it was sent.
    case tokenRefreshFailed(underlying: any Error, response: Response?)

    /// The response, wherever there is one.
    public var response: Response? {
        switch self {
        case .unacceptableStatusCode(let response): response
        case .decoding(let failure): failure.response
        case .tokenRefreshFailed(_, let response): response
        default: nil
        }
    }
}

/// Why a body could not be decoded.
public struct DecodingFailure: Sendable {
    /// The type that was requested.
    public let type: String
    /// The dotted key path that was decoded, if any.
    public let keyPath: String?
    /// The decoder's error.
    public let underlying: any Error
    /// The response whose body failed to decode (for a JSON-lines stream, the line that failed).
    public let response: Response
    /// For a JSON-lines stream, the number of the line that failed, counted from 1, empty lines included.
    public let line: Int?

    /// Creates a failure.
    public init(type: String, keyPath: String?, underlying: any Error, response: Response, line: Int? = nil) {
        self.type = type
        self.keyPath = keyPath
        self.underlying = underlying
        self.response = response
        self.line = line
    }
}

/// Which part of a request could not be built, and why.
public enum InvalidRequestReason: Sendable, Equatable {
    /// The base URL has no scheme such as `https`.
    case baseURLMissingScheme(baseURL: String)
    /// The base URL has no host.
    case baseURLMissingHost(baseURL: String)
    /// The endpoint path cannot be part of a URL; `problem` says which character and where.
    case invalidPath(path: String, problem: String)
    /// Base URL, path and query joined together do not parse as a URL, or a request's URL has no host.
    case invalidURL(String)
    /// A header name is empty or contains a character that is not allowed in an HTTP token.
    case invalidHeaderName(String)
    /// A header value contains a control character (CR, LF and NUL would allow request smuggling). The value itself
    /// is not repeated because it may be a secret.
    case invalidHeaderValue(name: String, problem: String)
    /// A framing header (`Content-Length`, `Transfer-Encoding`, `Host`, `Connection`, `Upgrade`) was set; NAL and
    /// URLSession own these.
    case framingHeader(name: String)
    /// A header that NAL's transport keeps for itself (`X-NAL-Transport`, `X-NAL-Upload-File`, between it and NAL's
    /// stub server) was set.
    case reservedHeader(name: String)
    /// Two header names differ only in letter case; HTTP header names are case-insensitive.
    case duplicateHeader(name: String, otherName: String)
    /// A timeout is not a finite number of seconds in `0 < value <= RequestOptions.maximumTimeout`.
    /// `setting` names where it came from, for example `endpoint timeout` or `RequestOptions.totalTimeout`.
    case invalidTimeout(setting: String, value: Double)
    /// A size limit of one call is negative; `setting` names it, for example `RequestOptions.maximumResponseSize`.
    case invalidSizeLimit(setting: String, value: Int)
    /// The URL's scheme cannot be sent by this transport; `URLSessionTransport` sends `http` and `https`.
    case unsupportedScheme(String)
    /// A custom HTTP method is empty or contains a character that is not allowed in an HTTP token.
    case invalidMethod(String)
    /// The request has no URL to encode parameters into.
    case missingURL
    /// The body encoding of `compositeParameters` would write into the URL query; use `urlParameters` for that.
    case bodyEncodingTargetsQuery
    /// The transport cannot send this kind of request yet, for example a multipart upload.
    case unsupportedRequestType(String)
}

/// Why parameters or a body could not be encoded.
public enum EncodingFailureReason: Sendable {
    /// A NaN or infinite number, which neither JSON nor a query can carry, at the given key path.
    case nonFiniteNumber(keyPath: String)
    /// A parameter key is empty. `keyPath` names the dictionary that holds it (empty at the top level).
    case emptyKey(keyPath: String)
    /// Parameters are nested deeper than `limit` containers; `keyPath` leads to the first one too deep.
    case nestingTooDeep(keyPath: String, limit: Int)
    /// An `Encodable` value threw while being encoded.
    case encodableFailed(type: String, underlying: any Error)
    /// The top-level value of a form or query must encode as a keyed container (a struct or a dictionary).
    case topLevelNotKeyed(type: String)
    /// A custom `ParameterEncoding` threw an error that is not an `NALError`.
    case parameterEncodingFailed(encoding: String, underlying: any Error)
}
