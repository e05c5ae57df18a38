public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// A response as the transport returned it, with the request that was sent.
public struct Response: Sendable {
    /// The HTTP status code.
    public let statusCode: Int
    /// The response headers in name order, with case-insensitive lookup.
    public let headers: HTTPHeaders
    /// The body.
    public let data: Data
    /// The request that was sent (after hooks and middleware).
    public let request: URLRequest
    /// Foundation's response object.
    public let httpResponse: HTTPURLResponse
    /// When the call started and how long it took.
    public let timing: ResponseTiming

    /// Creates a response; transports and stubs call this.
    public init(request: URLRequest, httpResponse: HTTPURLResponse, data: Data, timing: ResponseTiming) {
        self.request = request
        self.httpResponse = httpResponse
        self.data = data
        self.timing = timing
        statusCode = httpResponse.statusCode
        headers = HTTPHeaders(
            httpResponse.allHeaderFields
                .map { (name: $0.key as? String ?? "\($0.key)", value: $0.value as? String ?? "\($0.value)") }
                .sorted { $0.name < $1.name })
    }
}

/// When a call started and how long it took.
public struct ResponseTiming: Sendable, Equatable {
    /// Wall-clock start, for logs.
    public let start: Date
    /// Monotonic duration from handing the request to the transport until the whole body arrived.
    public let duration: Duration

    /// Creates a timing.
    public init(start: Date, duration: Duration) {
        self.start = start
        self.duration = duration
    }
}
