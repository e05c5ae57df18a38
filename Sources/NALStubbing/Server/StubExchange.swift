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
        if fromNAL {
            request.setValue(nil, forHTTPHeaderField: StubbingSupport.markerHeader)
            if let path = request.value(forHTTPHeaderField: StubbingSupport.uploadFileHeader) {
                request.setValue(nil, forHTTPHeaderField: StubbingSupport.uploadFileHeader)
                request.httpBody = Self.journalBody(ofFileAt: path)
            }
        }
        self.request = request
    }

    /// The largest uploaded file whose bytes the journal keeps; a larger one is journaled without its body.
    static let journaledFileLimit: Int64 = 64 << 20

    /// The bytes of an uploaded file, for matchers and the journal: NAL's transport streams a file, which a
    /// URLProtocol cannot see on Linux, so it names the file instead.
    private static func journalBody(ofFileAt path: String) -> Data? {
        let url = URL(fileURLWithPath: path)
        guard let size = try? FileAccess.readableFileSize(url), size <= journaledFileLimit else { return nil }
        return try? Data(contentsOf: url)
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
