package import Foundation
package import NALCore

#if canImport(FoundationNetworking)
    package import FoundationNetworking
#endif

/// An endpoint whose every part a test can set.
package struct TestEndpoint: RemoteService, Equatable {
    package var baseURL: URL
    package var path: String
    package var method: HTTPMethod
    package var requestType: RequestType
    package var headers: [String: String]?
    package var validation: RequestValidation
    package var timeout: TimeInterval?
    package var totalTimeout: TimeInterval?
    package var cachePolicy: URLRequest.CachePolicy?

    /// `https://api.example.com/v1`, which no test ever reaches.
    package static let exampleBase = URL(string: "https://api.example.com/v1") ?? URL(fileURLWithPath: "/")

    /// Creates an endpoint; every part has a default.
    package init(
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
    package static func == (lhs: TestEndpoint, rhs: TestEndpoint) -> Bool {
        lhs.baseURL == rhs.baseURL && lhs.path == rhs.path && lhs.method == rhs.method && lhs.headers == rhs.headers
    }
}
