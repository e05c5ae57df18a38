#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// What a listener's answers need to know of it: its own origin, the origin it answers as, and whether it serves
/// the admin endpoints.
struct ListenerContext: Sendable {
    /// `http://127.0.0.1:PORT`.
    let base: String
    /// `https://api.github.com`, when it answers as that origin.
    let origin: String?
    let admin: Bool

    /// The `URLRequest` a parsed request stands for, sent to `origin`; `nil` when its target makes no URL.
    func request(for parsed: ParsedRequest, origin: String) -> URLRequest? {
        guard let url = url(of: parsed.target, origin: origin) else { return nil }
        var request = URLRequest(url: url)
        request.httpMethod = parsed.method
        var headers: [String: String] = [:]
        var spelling: [String: String] = [:]
        for field in parsed.fields {
            // Repeated fields are joined as RFC 9110 §5.3 combines them, under the first spelling of the name.
            let key = field.name.lowercased()
            let name = spelling[key] ?? field.name
            spelling[key] = name
            headers[name] = headers[name].map { "\($0), \(field.value)" } ?? field.value
        }
        request.allHTTPHeaderFields = headers
        if !parsed.body.isEmpty { request.httpBody = parsed.body }
        return request
    }

    /// `request`'s URL as sent to `origin` instead.
    func url(of request: URLRequest, origin: String) -> URL? {
        guard let url = request.url, let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return nil
        }
        let query = components.percentEncodedQuery.map { "?" + $0 } ?? ""
        return URL(string: origin + components.percentEncodedPath + query)
    }

    /// The URL of a request target (`/path?query`, an absolute URL, or `*`) at `origin`.
    private func url(of target: String, origin: String) -> URL? {
        var pathAndQuery = target
        if target == "*" {
            pathAndQuery = "/"
        } else if !target.hasPrefix("/") {
            // The absolute form (a proxy's): its path and query, at the listener's origin.
            guard let absolute = URLComponents(string: target), absolute.scheme != nil else { return nil }
            let path = absolute.percentEncodedPath.isEmpty ? "/" : absolute.percentEncodedPath
            pathAndQuery = path + (absolute.percentEncodedQuery.map { "?" + $0 } ?? "")
        }
        if let url = URL(string: origin + pathAndQuery) { return url }
        // Bytes a URL does not take as they are (raw UTF-8, a stray `%`) are escaped rather than refused.
        let escaped = pathAndQuery.addingPercentEncoding(withAllowedCharacters: Self.targetCharacters)
        return escaped.flatMap { URL(string: origin + $0) }
    }

    /// What a request target keeps unescaped: the URL's unreserved and reserved characters, without `%`.
    private static let targetCharacters = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~:/?#[]@!$&'()*+,;=")
}
