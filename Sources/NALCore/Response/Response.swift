public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// A response as the transport returned it, with the request that was sent.
public struct Response: Sendable {
    /// The HTTP status code.
    public let statusCode: Int
    /// The response headers in name order, with case-insensitive lookup. Built once, on first access: on Linux,
    /// reading `allHeaderFields` converts the whole dictionary, which most callers never need.
    public var headers: HTTPHeaders { head.headers }
    /// The head, and what is made of it on first access.
    private let head: LazyHTTPResponse
    /// The body; empty for a download, whose body is in `fileURL`.
    public let data: Data
    /// Where a download's body was stored: the final file, moved into place. `nil` for other calls, and for a
    /// download whose status was not a success (its body is then in `data`).
    public let fileURL: URL?
    /// The request that was sent (after hooks and middleware).
    public let request: URLRequest
    /// Foundation's response object. A transport that reads the head itself (`CurlTransport`) makes it on first
    /// access, once, and every copy of the response shares it.
    public var httpResponse: HTTPURLResponse { head.response }
    /// When the call started and how long it took; for a streamed response, until its head arrived.
    public let timing: ResponseTiming
    /// The body still arriving, for a response a transport streams (`TransportContext.streamsBody`); `data` is then
    /// empty. Middleware that wants to act when the body ends registers with `whenEnded(_:)`; a middleware that
    /// returns a response of its own replaces the stream with that response's `data`.
    public let streamedBody: StreamedBody?

    /// Creates a response; transports and stubs call this.
    public init(
        request: URLRequest, httpResponse: HTTPURLResponse, data: Data, timing: ResponseTiming, fileURL: URL? = nil,
        streamedBody: StreamedBody? = nil
    ) {
        self.init(
            request: request, head: LazyHTTPResponse(httpResponse), data: data, timing: timing, fileURL: fileURL,
            streamedBody: streamedBody)
    }

    /// Creates a response whose `HTTPURLResponse` is made only when it is read.
    package init(
        request: URLRequest, head: LazyHTTPResponse, data: Data, timing: ResponseTiming, fileURL: URL? = nil,
        streamedBody: StreamedBody? = nil
    ) {
        self.request = request
        self.head = head
        self.data = data
        self.fileURL = fileURL
        self.timing = timing
        self.streamedBody = streamedBody
        statusCode = head.statusCode
    }

    /// This response with `data` as its whole body and no stream.
    package func replacingBody(with data: Data) -> Response {
        Response(request: request, head: head, data: data, timing: timing, fileURL: fileURL)
    }

    /// This response with `body` as its stream and no data in memory, sharing the head.
    package func streaming(_ body: StreamedBody) -> Response {
        Response(request: request, head: head, data: Data(), timing: timing, streamedBody: body)
    }

    /// Whether `httpResponse` has been made: for tests of the transports that make it on first read.
    package var isHTTPResponseMade: Bool { head.isMade }

    /// The status line's HTTP version as the server sent it (`HTTP/1.1`, `HTTP/2`), when the transport read the status
    /// line itself (`CurlTransport`); `nil` from `URLSessionTransport`, whose `HTTPURLResponse` does not expose it, and
    /// from stubs and caches.
    public var httpVersion: String? { head.reasonPhrase == nil ? nil : head.version }

    /// The status line's reason phrase as the server sent it (`OK`, `Not Found`; empty when there is none, as over
    /// HTTP/2), when the transport read the status line itself (`CurlTransport`); `nil` otherwise, as `httpVersion`.
    /// Control characters are dropped and it is at most 256 bytes. For a name of the status that does not depend on
    /// the server, use `HTTPURLResponse.localizedString(forStatusCode:)`.
    public var reasonPhrase: String? { head.reasonPhrase }

    /// The URL that answered (after any redirect), without making `httpResponse`.
    package var responseURL: URL? { head.url }

    /// A response made from a head kept elsewhere (a cache's), whose `HTTPURLResponse` is made only when it is read;
    /// `nil` when Foundation cannot make a response of `url` and `statusCode`.
    package init?(
        request: URLRequest, url: URL, statusCode: Int, fields: [(name: String, value: String)], data: Data,
        timing: ResponseTiming
    ) {
        guard
            let head = LazyHTTPResponse(
                ResponseHead(url: url, statusCode: statusCode, version: "HTTP/1.1", fields: fields))
        else { return nil }
        self.init(request: request, head: head, data: data, timing: timing)
    }

    /// This response with `fields` as its header fields, in an `HTTPURLResponse` made only when it is read; `nil`
    /// when Foundation cannot make a response of its URL and status.
    package func replacingFields(with fields: [(name: String, value: String)]) -> Response? {
        guard let url = head.url ?? request.url,
            let newHead = LazyHTTPResponse(
                ResponseHead(
                    url: url, statusCode: statusCode, version: head.version, fields: fields,
                    reasonPhrase: head.reasonPhrase))
        else { return nil }
        return Response(
            request: request, head: newHead, data: data, timing: timing, fileURL: fileURL, streamedBody: streamedBody)
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
