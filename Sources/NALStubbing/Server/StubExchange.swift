import NALCore
import NALSupport

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// One request on its way through a stub server's redirects, with the session settings that the stub layer
/// honours on the session's behalf.
struct StubExchange: Sendable {
    /// What a stub's response means for the request.
    enum Outcome {
        /// Hand this response to the client.
        case deliver(HTTPURLResponse)
        /// Follow the redirect with this request.
        case follow(URLRequest)
        /// Fail the request with this error.
        case fail(any Error)
    }

    /// Redirects a plain URLSession client may be led through before the request fails, as URLSession's limit.
    static let maximumRedirects = RedirectPolicy.mostFollowed

    /// The request to answer now: the original, or the last redirect's.
    var request: URLRequest
    /// Whether NAL's transport sent the request: it takes bodies in chunks and follows redirects itself.
    let fromNAL: Bool
    /// The file an upload from NAL's transport streams, which a URLProtocol cannot see (Linux fact 5).
    let uploadFile: URL?
    let settings: SessionSettings
    private var redirects = 0

    init(_ original: URLRequest, settings: SessionSettings) {
        var request = original
        let marker = request.value(forHTTPHeaderField: StubSessionSeam.markerHeader)
        // Only NAL's transport knows this process's marker; anyone else's markers are removed and ignored.
        fromNAL = marker == StubSessionSeam.markerValue
        var uploadFile: URL?
        // Only when present: changing a URLRequest copies it whole.
        if marker != nil { request.setValue(nil, forHTTPHeaderField: StubSessionSeam.markerHeader) }
        if let path = request.value(forHTTPHeaderField: StubSessionSeam.uploadFileHeader) {
            request.setValue(nil, forHTTPHeaderField: StubSessionSeam.uploadFileHeader)
            if fromNAL {
                uploadFile = URL(fileURLWithPath: path)
                request.httpBody = Self.matchableBody(ofFileAt: path)
            }
        }
        self.uploadFile = uploadFile
        self.settings = settings
        self.request = settings.addingCookies(to: request)
    }

    /// The largest uploaded file whose bytes matchers and the journal see; a larger one is matched as an empty body
    /// (and still sent whole when the request passes through to the network).
    static let matchedFileLimit: Int64 = 64 << 20

    private static func matchableBody(ofFileAt path: String) -> Data? {
        let url = URL(fileURLWithPath: path)
        guard let size = try? FileAccess.readableFileSize(url), size <= matchedFileLimit else { return nil }
        return try? Data(contentsOf: url)
    }

    /// What `response` means for the request: a redirect to follow in the stub layer, the response to deliver, or a
    /// failure (a stubbed error, or a stub whose status is not HTTP's).
    mutating func outcome(of response: StubResponse) -> Outcome {
        if let error = response.error { return .fail(error) }
        guard let url = request.url else { return .fail(URLError(.badURL)) }
        if let problem = response.statusProblem {
            return .fail(
                URLError(
                    .badServerResponse,
                    userInfo: [
                        NSLocalizedDescriptionKey: "the stub for \(DisplayText.url(url)) \(problem)",
                        NSURLErrorFailingURLErrorKey: url,
                    ]))
        }
        guard
            let http = HTTPURLResponse(
                url: url, statusCode: response.status, httpVersion: "HTTP/1.1",
                headerFields: StubPlayback(response: response).headers)
        else { return .fail(URLError(.badURL)) }
        settings.storeCookies(of: http)
        guard !fromNAL, response.redirectLocation != nil, let next = RedirectPolicy.followUp(to: request, after: http)
        else { return .deliver(http) }
        redirects += 1
        guard redirects <= Self.maximumRedirects else { return .fail(URLError(.httpTooManyRedirects)) }
        return .follow(settings.addingCookies(to: next))
    }
}
