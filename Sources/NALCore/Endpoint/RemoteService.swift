public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// Describes one endpoint of a remote API. Model an API as an enum that conforms, one case per endpoint:
///
/// ```swift
/// enum GitHub: RemoteService {
///     case zen, userProfile(String)
///     var baseURL: URL { URL(string: "https://api.github.com")! }
///     var path: String {
///         switch self {
///         case .zen: "zen"
///         case .userProfile(let login): "users/\(pathSegment: login)"
///         }
///     }
///     var method: HTTPMethod { .get }
///     var requestType: RequestType { .plain }
/// }
/// ```
///
/// `try endpoint.urlRequest()` turns an endpoint into a `URLRequest`.
public protocol RemoteService: Sendable {
    /// The URL every path of this service is relative to. It must have a scheme and a host and may have a path.
    var baseURL: URL { get }
    /// The path relative to `baseURL`, already percent-encoded where needed. Use `\(pathSegment:)` for dynamic
    /// segments. Slashes where the two meet are normalised, so `"users"` and `"/users"` are the same.
    var path: String { get }
    /// The HTTP method.
    var method: HTTPMethod { get }
    /// What the request carries: parameters, a body, an upload or a download.
    var requestType: RequestType { get }
    /// Headers for this endpoint. `nil` by default.
    var headers: [String: String]? { get }
    /// Which status codes count as success. `.successCodes` by default.
    var validation: RequestValidation { get }
    /// Sample response body for stubs and tests. Empty by default.
    var testData: Data { get }
    /// The idle timeout for this endpoint in seconds, or `nil` to keep the transport's (a session's
    /// `timeoutIntervalForRequest`, 60 s by default; `CurlTransport.idleTimeout`): the call fails when nothing is
    /// sent or received for this long. Enforced by NAL with millisecond precision; 60 means 60 s, whatever the
    /// transport's own. `nil` by default.
    var timeout: TimeInterval? { get }
    /// The total timeout for this endpoint in seconds: the whole call, middleware and retries included, must end
    /// within it. `nil` (no limit) by default.
    var totalTimeout: TimeInterval? { get }
    /// A cache policy for this endpoint, or `nil` to keep the session's. `nil` by default.
    var cachePolicy: URLRequest.CachePolicy? { get }
}

extension RemoteService {
    /// No extra headers.
    public var headers: [String: String]? { nil }
    /// Accept 200..<300.
    public var validation: RequestValidation { .successCodes }
    /// An empty body.
    public var testData: Data { Data() }
    /// The session's timeout.
    public var timeout: TimeInterval? { nil }
    /// No total limit.
    public var totalTimeout: TimeInterval? { nil }
    /// The session's cache policy.
    public var cachePolicy: URLRequest.CachePolicy? { nil }
}
