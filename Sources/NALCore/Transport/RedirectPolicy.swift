#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// What `URLSessionTransport` does with a 3xx response that has a `Location`.
///
/// Whatever the policy, a redirect to another origin (scheme, host or port) never carries `Authorization`, `Cookie`
/// or `Proxy-Authorization`: they are removed before the policy sees the new request.
public enum RedirectPolicy: Sendable {
    /// Follow redirects. The default.
    case follow
    /// Return the 3xx response itself.
    case doNotFollow
    /// Decide per redirect: return the request to send, or `nil` to stop and return the 3xx response.
    case custom(@Sendable (_ response: HTTPURLResponse, _ proposed: URLRequest) -> URLRequest?)

    /// Headers that carry credentials and must not cross origins.
    static let credentialHeaders = ["Authorization", "Cookie", "Proxy-Authorization"]

    /// `proposed` with credentials removed when it leaves the origin of `from`.
    static func strippingCredentials(_ proposed: URLRequest, from origin: URL?) -> URLRequest {
        guard let origin, let target = proposed.url, !isSameOrigin(origin, target) else { return proposed }
        var stripped = proposed
        for name in credentialHeaders { stripped.setValue(nil, forHTTPHeaderField: name) }
        return stripped
    }

    /// RFC 6454 origin: scheme, host and port, with default ports filled in.
    static func isSameOrigin(_ lhs: URL, _ rhs: URL) -> Bool {
        func origin(_ url: URL) -> (String, String, Int?) {
            let scheme = url.scheme?.lowercased() ?? ""
            let defaultPort: Int? = scheme == "https" ? 443 : scheme == "http" ? 80 : nil
            return (scheme, url.host?.lowercased() ?? "", url.port ?? defaultPort)
        }
        return origin(lhs) == origin(rhs)
    }
}
