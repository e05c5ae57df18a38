import NALSupport

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
    /// The answers it sends the same every time.
    let answers = ListenerAnswerCache()
    /// The stubs added to it over HTTP.
    let addedStubs = AdminStubs()

    /// The URL a request target (`/path?query`, an absolute URL, or `*`) asks for at `origin`, and its path and
    /// query as they went into it, escaped where a URL would not take the target's bytes; `nil` for a target that
    /// is none of these.
    func url(of target: String, at origin: String) -> (url: URL, pathAndQuery: String)? {
        var pathAndQuery = target
        if target == "*" {
            pathAndQuery = "/"
        } else if !target.hasPrefix("/") {
            // The absolute form (a proxy's): only an http or https URL with a host, whose path and query are taken
            // at the listener's origin. Anything else (`a:@evil.example/x`) could make the origin's host another.
            guard let absolute = URLComponents(string: target),
                let scheme = absolute.scheme?.lowercased(), scheme == "http" || scheme == "https",
                let host = absolute.host, !host.isEmpty
            else { return nil }
            let path = absolute.percentEncodedPath.isEmpty ? "/" : absolute.percentEncodedPath
            guard path.hasPrefix("/") else { return nil }
            pathAndQuery = path + (absolute.percentEncodedQuery.map { "?" + $0 } ?? "")
        }
        if let url = URL(string: origin + pathAndQuery) { return (url, pathAndQuery) }
        // Bytes a URL does not take as they are (raw UTF-8, a stray `%`) are escaped; valid escapes are kept.
        let escaped = Self.escaped(pathAndQuery)
        return URL(string: origin + escaped).map { ($0, escaped) }
    }

    /// `pathAndQuery` at `origin`.
    func url(pathAndQuery: String, at origin: String) -> URL? {
        URL(string: origin + pathAndQuery)
    }

    /// `text` with every byte a request target may not hold as it is percent-encoded, `%XX` escapes kept.
    static func escaped(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var result = ""
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count, isHex(bytes[index + 1]), isHex(bytes[index + 2]) {
                result += String(decoding: bytes[index...(index + 2)], as: UTF8.self)
                index += 3
                continue
            }
            if byte < 0x80, targetCharacters.contains(Unicode.Scalar(byte)) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                result += String(format: "%%%02X", byte)
            }
            index += 1
        }
        return result
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    /// What a request target keeps unescaped: the URL's unreserved and reserved characters, without `%`.
    private static let targetCharacters = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~:/?#[]@!$&'()*+,;=")

    /// `location` pointing at the listener when it names the origin the listener answers as, or one its stubs name:
    /// a redirect the client follows stays on the stubs instead of leaving for the real origin.
    func rewritten(location: String, knownOrigins: [String]) -> String {
        guard let url = URL(string: location), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased()
        else { return location }
        let named = RequestMatcher.origin(scheme: scheme, host: host, port: url.port)
        guard named == origin || knownOrigins.contains(named), named != base,
            let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return location }
        let query = components.percentEncodedQuery.map { "?" + $0 } ?? ""
        let fragment = components.percentEncodedFragment.map { "#" + $0 } ?? ""
        return base + (components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath) + query + fragment
    }
}
