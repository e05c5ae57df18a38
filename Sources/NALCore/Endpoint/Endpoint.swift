public import Foundation
import NALSupport

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// A concrete copy of an endpoint's description that hooks can change: NAL's home for Moya's `endpointClosure`
/// and Mockingbird's `EndpointToRequestLambda`.
///
/// ```swift
/// let client = Client<GitHub>(endpointMapping: { target in
///     Endpoint(target).adding(headers: ["X-Request-ID": UUID().uuidString])
/// })
/// ```
public struct Endpoint: RemoteService {
    /// See `RemoteService.baseURL`. Pointing it at another origin (scheme, host or port) forgets `target`: what the
    /// target authorised (an access token) belongs to its own origin, not to wherever the copy now goes.
    public var baseURL: URL {
        didSet {
            if target != nil, !Self.sameOrigin(oldValue, baseURL) { target = nil }
        }
    }
    /// See `RemoteService.path`.
    public var path: String
    /// See `RemoteService.method`.
    public var method: HTTPMethod
    /// See `RemoteService.requestType`.
    public var requestType: RequestType
    /// See `RemoteService.headers`.
    public var headers: [String: String]?
    /// See `RemoteService.validation`.
    public var validation: RequestValidation
    /// See `RemoteService.testData`.
    public var testData: Data
    /// See `RemoteService.timeout`.
    public var timeout: TimeInterval?
    /// See `RemoteService.totalTimeout`.
    public var totalTimeout: TimeInterval?
    /// See `RemoteService.cachePolicy`.
    public var cachePolicy: URLRequest.CachePolicy?
    /// The service this endpoint was copied from (`Endpoint(GitHub.zen)` keeps `GitHub.zen`; a copy of a copy keeps
    /// the first), or `nil` for one made from a URL and its copies. Middleware reads it through `RemoteService.originalTarget`, so
    /// one `Client<Endpoint>` can call several service types (Moya's `MultiTarget`) and an access token middleware
    /// still sees `GitHub`. It is forgotten when `baseURL` moves to another origin.
    public private(set) var target: (any RemoteService)?

    /// Copies every property of `service`, and keeps `service` as `target`.
    public init(_ service: some RemoteService) {
        if let endpoint = service as? Endpoint { target = endpoint.target } else { target = service }
        baseURL = service.baseURL
        path = service.path
        method = service.method
        requestType = service.requestType
        headers = service.headers
        validation = service.validation
        testData = service.testData
        timeout = service.timeout
        totalTimeout = service.totalTimeout
        cachePolicy = service.cachePolicy
    }

    /// An endpoint for one URL, for a call made without declaring a service type (Alamofire's `AF.request(url)`):
    /// `baseURL` is `url`, whose query is kept (parameters are added after it), and `path` is empty.
    public init(
        url: URL, method: HTTPMethod = .get, requestType: RequestType = .plain, headers: [String: String]? = nil,
        validation: RequestValidation = .successCodes, timeout: TimeInterval? = nil,
        totalTimeout: TimeInterval? = nil
    ) {
        baseURL = url
        path = ""
        self.method = method
        self.requestType = requestType
        self.headers = headers
        self.validation = validation
        testData = Data()
        self.timeout = timeout
        self.totalTimeout = totalTimeout
        cachePolicy = nil
        target = nil
    }

    /// Whether two URLs share scheme, host and port, in any letter case.
    private static func sameOrigin(_ one: URL, _ other: URL) -> Bool {
        one.scheme?.lowercased() == other.scheme?.lowercased() && one.host?.lowercased() == other.host?.lowercased()
            && one.port == other.port
    }

    /// This endpoint with `headers` added. A new header replaces an existing one whose name matches in any letter
    /// case, since header names are case-insensitive: `adding(headers: ["authorization": "NEW"])` replaces
    /// `Authorization`.
    public func adding(headers newHeaders: [String: String]) -> Endpoint {
        var copy = self
        var merged = headers ?? [:]
        for (name, value) in newHeaders {
            for existing in merged.keys where existing != name && HTTPToken.equalsIgnoringASCIICase(existing, name) {
                merged[existing] = nil
            }
            merged[name] = value
        }
        copy.headers = merged
        return copy
    }

    /// This endpoint sent to `url` as it is (a `Link: rel="next"` page, a `Location`): `baseURL` becomes `url`, the
    /// path empty and the request type `.plain`, since such a URL carries its own query. Headers, method, validation
    /// and timeouts stay; so does `target`, and with it an access token, while `url` is on the same origin.
    public func replacing(url: URL) -> Endpoint {
        var copy = self
        copy.baseURL = url
        copy.path = ""
        copy.requestType = .plain
        return copy
    }

    /// This endpoint with another request type.
    public func replacing(requestType newRequestType: RequestType) -> Endpoint {
        var copy = self
        copy.requestType = newRequestType
        return copy
    }
}

extension RemoteService {
    /// The service a call is for: an `Endpoint`'s `target` when it has one, else this service itself (what Moya's
    /// `MultiTarget.target` gives). Middleware that decides by the caller's type (`as? AccessTokenAuthorizable`) asks this.
    public var originalTarget: any RemoteService {
        (self as? Endpoint)?.target ?? self
    }
}
