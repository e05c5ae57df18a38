/// The one error type that NAL's APIs throw.
///
/// Each case carries enough context to say what went wrong and where; `description` renders it as a sentence a
/// person can act on.
public enum NALError: Error, Sendable {
    /// The endpoint could not be turned into a valid `URLRequest`.
    case invalidRequest(InvalidRequestReason)
    /// Parameters or a body could not be encoded.
    case encoding(EncodingFailureReason)
}

/// Which part of a request could not be built, and why.
public enum InvalidRequestReason: Sendable, Equatable {
    /// The base URL has no scheme such as `https`.
    case baseURLMissingScheme(baseURL: String)
    /// The base URL has no host.
    case baseURLMissingHost(baseURL: String)
    /// The endpoint path cannot be part of a URL; `problem` says which character and where.
    case invalidPath(path: String, problem: String)
    /// Base URL, path and query joined together do not parse as a URL.
    case invalidURL(String)
    /// A header name is empty or contains a character that is not allowed in an HTTP token.
    case invalidHeaderName(String)
    /// A header value contains CR, LF or NUL, which would allow request smuggling. The value itself is not repeated
    /// because it may be a secret.
    case invalidHeaderValue(name: String, problem: String)
    /// A custom HTTP method is empty or contains a character that is not allowed in an HTTP token.
    case invalidMethod(String)
    /// The request has no URL to encode parameters into.
    case missingURL
    /// The body encoding of `compositeParameters` would write into the URL query; use `urlParameters` for that.
    case bodyEncodingTargetsQuery
}

/// Why parameters or a body could not be encoded.
public enum EncodingFailureReason: Sendable {
    /// A NaN or infinite number, which neither JSON nor a query can carry, at the given key path.
    case nonFiniteNumber(keyPath: String)
    /// A parameter key is empty. `keyPath` names the dictionary that holds it (empty at the top level).
    case emptyKey(keyPath: String)
    /// An `Encodable` value threw while being encoded.
    case encodableFailed(type: String, underlying: any Error)
    /// The top-level value of a form or query must encode as a keyed container (a struct or a dictionary).
    case topLevelNotKeyed(type: String)
    /// A custom `ParameterEncoding` threw an error that is not an `NALError`.
    case parameterEncodingFailed(encoding: String, underlying: any Error)
}
