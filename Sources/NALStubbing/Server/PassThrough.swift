import NALCore

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// The network, for requests a stub server passes through (`.passThrough`, `ignore(_:)`): NAL's own transport on a
/// session that no stub server intercepts, so that redirects are followed as NAL follows them (credentials never
/// leave their origin; FoundationNetworking's own following would forward `Authorization`, Linux fact 7) and an
/// upload's file streams exactly its length. Its own cookie handling is off: the stub server applies the stubbed
/// session's settings, and a recorder sees every cookie that is sent.
enum PassThrough {
    /// The largest body a passed-through response may have: the stub server hands it over from memory.
    static let maximumResponseSize = 1 << 30

    private static let configuration: URLSessionConfiguration = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        return configuration
    }()

    /// For plain URLSession clients, which cannot be handed a redirect by a URLProtocol on Linux (Linux fact 18).
    private static let following = URLSessionTransport(
        configuration: configuration, maximumResponseSize: maximumResponseSize, redirectPolicy: .follow)
    /// For NAL's transport, which follows redirects itself, by its own policy.
    private static let notFollowing = URLSessionTransport(
        configuration: configuration, maximumResponseSize: maximumResponseSize, redirectPolicy: .doNotFollow)

    /// The request as an endpoint, for the transport's context.
    private struct Passed: RemoteService {
        let baseURL: URL
        var path: String { "" }
        var method: HTTPMethod { .get }
        var requestType: RequestType { .plain }
        var headers: [String: String]? { nil }
    }

    /// Sends `request`, with the file an upload from NAL's transport named streamed as its body, exactly its
    /// length; follows redirects unless NAL's transport sent it (`fromNAL`).
    static func send(_ request: URLRequest, uploadFile: URL?, fromNAL: Bool) async throws -> (Data, HTTPURLResponse) {
        let kind: RequestKind = uploadFile.map { .upload(.file($0)) } ?? .data
        let context = TransportContext(
            endpoint: Passed(baseURL: request.url ?? URL(fileURLWithPath: "/")), kind: kind)
        do {
            let response = try await (fromNAL ? notFollowing : following).send(request, context: context)
            return (response.data, response.httpResponse)
        } catch {
            throw urlError(error, url: request.url)
        }
    }

    /// What the stub server's client is told: a `URLError`, as URLSession's own requests fail with.
    private static func urlError(_ error: NALError, url: URL?) -> URLError {
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: error.description]
        if let url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        switch error {
        case .transport(let urlError): return urlError
        case .cancelled: return URLError(.cancelled, userInfo: userInfo)
        case .timedOut: return URLError(.timedOut, userInfo: userInfo)
        case .responseTooLarge: return URLError(.dataLengthExceedsMaximum, userInfo: userInfo)
        case .file: return URLError(.cannotOpenFile, userInfo: userInfo)
        default: return URLError(.unknown, userInfo: userInfo)
        }
    }
}
