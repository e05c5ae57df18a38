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
    /// See `RemoteService.baseURL`.
    public var baseURL: URL
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

    /// Copies every property of `service`.
    public init(_ service: some RemoteService) {
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

    /// This endpoint with another request type.
    public func replacing(requestType newRequestType: RequestType) -> Endpoint {
        var copy = self
        copy.requestType = newRequestType
        return copy
    }
}
