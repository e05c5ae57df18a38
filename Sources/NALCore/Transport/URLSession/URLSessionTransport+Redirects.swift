import NALLogging

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

extension URLSessionTransport {
    /// Sends `request` and the redirects that follow; an upload's body goes along where the method is kept (307,
    /// 308).
    func followingRedirects(
        _ request: URLRequest, upload: UploadBody?, _ exchange: Exchange
    ) async throws(NALError) -> (HTTPURLResponse, Data) {
        try await followingRedirects(request, upload: upload) { request, upload throws(NALError) in
            try await tasks.exchange(
                request, in: session, limit: exchange.limit, idleTimeout: exchange.idleTimeout, upload: upload,
                routing: exchange.routing, progress: exchange.progress)
        } discarding: { _ in
        }
    }

    /// Sends `request` with `send`, and the redirects that follow; `discard` is given the body of each redirect.
    func followingRedirects<Body>(
        _ request: URLRequest, upload: UploadBody?,
        send: (URLRequest, UploadBody?) async throws(NALError) -> (HTTPURLResponse, Body),
        discarding discard: (Body) -> Void
    ) async throws(NALError) -> (HTTPURLResponse, Body) {
        var current = request
        var upload = upload
        var redirects = 0
        while true {
            let (httpResponse, body) = try await send(current, upload)
            if let cutShort = SessionDelegate.truncatedGzip(httpResponse, url: current.url) {
                discard(body)
                throw cutShort
            }
            guard var next = try followUp(to: current, after: httpResponse) else { return (httpResponse, body) }
            discard(body)
            redirects += 1
            guard redirects <= Self.maximumRedirects else {
                throw .transport(
                    URLError(.httpTooManyRedirects, userInfo: [NSURLErrorFailingURLErrorKey: next.url as Any]))
            }
            if (next.httpMethod ?? "GET") != (current.httpMethod ?? "GET") {
                upload = nil
                next.setValue(nil, forHTTPHeaderField: StubSessionSeam.uploadFileHeader)
            }
            current = next
        }
    }

    /// The next request of a redirect chain, or `nil` to return `response`.
    func followUp(to request: URLRequest, after response: HTTPURLResponse) throws(NALError) -> URLRequest? {
        var next = redirectPolicy.nextRequest(after: response, to: request)
        if (300..<400).contains(response.statusCode) {
            CoreLog.request.debug(
                """
                redirect \(response.statusCode) to \(DisplayText.url(response.value(forHTTPHeaderField: "Location") ?? ""), privacy: .public): \
                \(next == nil ? "not followed" : "followed", privacy: .public)
                """)
        }
        guard var checked = next else { return nil }
        // The stub markers this transport put on the request carry over; a policy cannot add its own.
        let marker = request.value(forHTTPHeaderField: StubSessionSeam.markerHeader)
        let uploadFile = request.value(forHTTPHeaderField: StubSessionSeam.uploadFileHeader)
        checked.setValue(nil, forHTTPHeaderField: StubSessionSeam.markerHeader)
        checked.setValue(nil, forHTTPHeaderField: StubSessionSeam.uploadFileHeader)
        try OutgoingRequest.check(checked)
        if marker != nil {
            checked.setValue(StubSessionSeam.markerValue, forHTTPHeaderField: StubSessionSeam.markerHeader)
        }
        if let uploadFile { checked.setValue(uploadFile, forHTTPHeaderField: StubSessionSeam.uploadFileHeader) }
        next = checked
        return next
    }
}
