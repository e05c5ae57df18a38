import NALCore

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// One request on its way through a stub server's redirects.
struct StubExchange: Sendable {
    /// What a stub's response means for the request.
    enum Outcome {
        /// Hand this response to the client.
        case deliver(HTTPURLResponse)
        /// Follow the redirect with this request.
        case follow(URLRequest)
        /// Fail the request.
        case fail(URLError)
    }

    /// Redirects a plain URLSession client may be led through before the request fails, as URLSession's limit.
    static let maximumRedirects = 20

    /// The request to answer now: the original, or the last redirect's.
    var request: URLRequest
    /// Whether NAL's transport sent the request: it takes bodies in chunks and follows redirects itself.
    let fromNAL: Bool
    private var redirects = 0

    init(_ original: URLRequest) {
        var request = original
        fromNAL = request.value(forHTTPHeaderField: StubbingSupport.markerHeader) != nil
        // Only when present: changing a URLRequest copies it whole.
        if fromNAL { request.setValue(nil, forHTTPHeaderField: StubbingSupport.markerHeader) }
        self.request = request
    }

    /// What `response` means for the request: a redirect to follow in the stub layer, or the response to deliver.
    mutating func outcome(of response: StubResponse) -> Outcome {
        guard let url = request.url,
            let http = HTTPURLResponse(
                url: url, statusCode: response.status, httpVersion: "HTTP/1.1",
                headerFields: StubPlayback(response: response).headers)
        else { return .fail(URLError(.badURL)) }
        guard !fromNAL, response.redirectLocation != nil, let next = RedirectPolicy.followUp(to: request, after: http)
        else { return .deliver(http) }
        redirects += 1
        guard redirects <= Self.maximumRedirects else { return .fail(URLError(.httpTooManyRedirects)) }
        return .follow(next)
    }
}
