import NALSupport

#if canImport(FoundationNetworking)
    package import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// What a transport (`URLSessionTransport`, `CurlTransport`, `StubTransport`) does with a 3xx response that has a
/// `Location`.
///
/// NAL follows redirects itself (FoundationNetworking drops the body of a 307 or 308, and forwards credentials to
/// other hosts). It follows 301, 302, 303, 307 and 308 as RFC 9110 §15.4 says: 303 turns any method but HEAD into
/// GET, 301 and 302 turn POST into GET, and 307 and 308 keep the method and the body. Whatever the policy, a
/// redirect to another origin (scheme, host or port) never carries a header that `SensitiveData.current` names
/// (`Authorization`, `Cookie`, `Proxy-Authorization`, API keys, session tokens): they are removed before the policy
/// sees the new request, and again if the policy's request leaves the origin. At most 20 redirects are followed.
public enum RedirectPolicy: Sendable {
    /// Follow redirects. The default.
    case follow
    /// Return the 3xx response itself.
    case doNotFollow
    /// Decide per redirect: return the request to send, or `nil` to stop and return the 3xx response.
    case custom(@Sendable (_ response: HTTPURLResponse, _ proposed: URLRequest) -> URLRequest?)

    /// The most redirects one call follows, over every transport.
    package static let mostFollowed = 20

    /// The request this policy sends after `response` to `request`, or `nil` to return the response: what every
    /// transport that follows redirects (`URLSessionTransport`, `StubTransport`) asks.
    package func nextRequest(after response: HTTPURLResponse, to request: URLRequest) -> URLRequest? {
        guard let proposed = Self.followUp(to: request, after: response), let origin = request.url else { return nil }
        switch self {
        case .follow: return proposed
        case .doNotFollow: return nil
        case .custom(let decide):
            return decide(response, proposed).map { Self.strippingCredentials($0, leaving: origin) }
        }
    }

    /// The request that follows `response` to `request` per RFC 9110, with credentials removed when it leaves the
    /// origin, or `nil` when the response is not a redirect NAL follows.
    package static func followUp(to request: URLRequest, after response: HTTPURLResponse) -> URLRequest? {
        let status = response.statusCode
        guard isFollowed(status), let from = request.url,
            let location = Self.headerValue("Location", in: response),
            let target = URL(string: location, relativeTo: from)?.absoluteURL,
            let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return nil }
        var next = request
        next.url = target
        let method = request.httpMethod ?? "GET"
        if (status == 303 && method != "HEAD") || ((status == 301 || status == 302) && method == "POST") {
            next.httpMethod = "GET"
            next.httpBody = nil
            next.httpBodyStream = nil
            for name in ["Content-Type", "Content-Encoding", "Content-Language", "Content-Location"] {
                next.setValue(nil, forHTTPHeaderField: name)
            }
        }
        return strippingCredentials(next, leaving: from)
    }

    /// Whether a response with `status` is a redirect NAL follows when it has a `Location`: 301, 302, 303, 307, 308.
    package static func isFollowed(_ status: Int) -> Bool {
        [301, 302, 303, 307, 308].contains(status)
    }

    /// `request` without sensitive headers when its URL is not of the same origin as `origin`.
    package static func strippingCredentials(_ request: URLRequest, leaving origin: URL) -> URLRequest {
        guard let target = request.url, !isSameOrigin(origin, target), let fields = request.allHTTPHeaderFields
        else { return request }
        let sensitive = SensitiveData.current
        var stripped = request
        for name in fields.keys where sensitive.isSensitiveHeader(name) {
            stripped.setValue(nil, forHTTPHeaderField: name)
        }
        return stripped
    }

    /// RFC 6454 origin: scheme, host and port, with default ports filled in.
    package static func isSameOrigin(_ lhs: URL, _ rhs: URL) -> Bool {
        func origin(_ url: URL) -> (String, String, Int?) {
            let scheme = url.scheme?.lowercased() ?? ""
            let defaultPort: Int? = scheme == "https" ? 443 : scheme == "http" ? 80 : nil
            return (scheme, url.host?.lowercased() ?? "", url.port ?? defaultPort)
        }
        return origin(lhs) == origin(rhs)
    }

    private static func headerValue(_ name: String, in response: HTTPURLResponse) -> String? {
        for (key, value) in response.allHeaderFields {
            if let key = key as? String, HTTPToken.equalsIgnoringASCIICase(key, name) { return value as? String }
        }
        return nil
    }
}
