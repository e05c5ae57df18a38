import NALCore

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// What the stub layer honours of a session's configuration, which a URLProtocol cannot see on Linux (fact 6):
/// the timeouts and the cookie settings.
struct SessionSettings: @unchecked Sendable {
    // @unchecked: HTTPCookieStorage is thread-safe.
    /// URLRequest's default, which means "not set".
    static let defaultTimeout: TimeInterval = 60

    let requestTimeout: TimeInterval
    let resourceTimeout: TimeInterval
    /// Where cookies are kept, when the session sends them.
    let cookies: HTTPCookieStorage?
    let acceptsCookies: Bool

    init(_ configuration: URLSessionConfiguration?) {
        requestTimeout = configuration?.timeoutIntervalForRequest ?? Self.defaultTimeout
        resourceTimeout = configuration?.timeoutIntervalForResource ?? 7 * 24 * 3600
        let storage = configuration?.httpShouldSetCookies == true ? configuration?.httpCookieStorage : nil
        cookies = storage
        acceptsCookies = storage != nil && configuration?.httpCookieAcceptPolicy != .never
    }

    /// The idle timeout of `request`: its own when set, else the session's.
    func idleTimeout(of request: URLRequest) -> TimeInterval {
        request.timeoutInterval != Self.defaultTimeout ? request.timeoutInterval : requestTimeout
    }

    /// `request` with the stored cookies for its URL, unless it has a `Cookie` header of its own.
    func addingCookies(to request: URLRequest) -> URLRequest {
        guard let cookies, let url = request.url, request.value(forHTTPHeaderField: "Cookie") == nil,
            let stored = cookies.cookies(for: url), !stored.isEmpty
        else { return request }
        var request = request
        for (name, value) in HTTPCookie.requestHeaderFields(with: stored) {
            request.setValue(value, forHTTPHeaderField: name)
        }
        return request
    }

    /// Stores the cookies that `response` sets.
    func storeCookies(of response: HTTPURLResponse) {
        guard acceptsCookies, let cookies, let url = response.url else { return }
        let fields = HTTPHeaders(response).dictionary
        guard fields.headerKey("Set-Cookie") != nil else { return }
        cookies.setCookies(
            HTTPCookie.cookies(withResponseHeaderFields: fields, for: url), for: url, mainDocumentURL: url)
    }
}
