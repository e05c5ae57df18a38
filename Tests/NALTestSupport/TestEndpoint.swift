public import Foundation
public import NALCore

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// An endpoint whose every part a test can set.
public struct TestEndpoint: RemoteService, Equatable {
    public var baseURL: URL
    public var path: String
    public var method: HTTPMethod
    public var requestType: RequestType
    public var headers: [String: String]?
    public var validation: RequestValidation
    public var timeout: TimeInterval?
    public var totalTimeout: TimeInterval?
    public var cachePolicy: URLRequest.CachePolicy?

    /// `https://api.example.com/v1`, which no test ever reaches.
    public static let exampleBase = URL(string: "https://api.example.com/v1") ?? URL(fileURLWithPath: "/")

    /// Creates an endpoint; every part has a default.
    public init(
        baseURL: URL = TestEndpoint.exampleBase, path: String = "", method: HTTPMethod = .get,
        requestType: RequestType = .plain, headers: [String: String]? = nil,
        validation: RequestValidation = .successCodes, timeout: TimeInterval? = nil,
        totalTimeout: TimeInterval? = nil, cachePolicy: URLRequest.CachePolicy? = nil
    ) {
        self.baseURL = baseURL
        self.path = path
        self.method = method
        self.requestType = requestType
        self.headers = headers
        self.validation = validation
        self.timeout = timeout
        self.totalTimeout = totalTimeout
        self.cachePolicy = cachePolicy
    }

    /// Endpoints are equal when they prepare the same request (the request type is not compared).
    public static func == (lhs: TestEndpoint, rhs: TestEndpoint) -> Bool {
        lhs.baseURL == rhs.baseURL && lhs.path == rhs.path && lhs.method == rhs.method && lhs.headers == rhs.headers
    }
}
