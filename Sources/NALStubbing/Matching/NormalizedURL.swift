import Foundation
import NALCore

/// A URL reduced to what identifies a resource: lower-cased scheme and host, the port without its default, the
/// percent-encoded path, and the query items sorted, so that `?b=2&a=1` equals `?a=1&b=2`.
struct NormalizedURL: Hashable, Sendable, CustomStringConvertible {
    let scheme: String
    let host: String
    let port: Int?
    let path: String
    let query: [String]

    init(_ url: URL) {
        scheme = url.scheme?.lowercased() ?? ""
        host = url.host?.lowercased() ?? ""
        let defaultPort = scheme == "https" ? 443 : scheme == "http" ? 80 : nil
        port = url.port == defaultPort ? nil : url.port
        path = Self.path(of: url)
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        query = items.map { "\($0.name)=\($0.value ?? "")" }.sorted()
    }

    /// The percent-encoded path as sent, `/` when empty.
    static func path(of url: URL) -> String {
        let path = url.path(percentEncoded: true)
        return path.isEmpty ? "/" : path
    }

    /// Whether `other` is this URL, where a query value redacted in a recording (`token=<redacted>`) stands for any
    /// value: how an exported journal or a cassette replays requests whose secrets it does not hold.
    func accepts(_ other: NormalizedURL) -> Bool {
        guard scheme == other.scheme, host == other.host, port == other.port, path == other.path,
            query.count == other.query.count
        else { return false }
        if query == other.query { return true }
        let wildcard = "=" + SensitiveData.marker
        return zip(query, other.query).allSatisfy { mine, theirs in
            mine == theirs || (mine.hasSuffix(wildcard) && theirs.hasPrefix(mine.dropLast(SensitiveData.marker.count)))
        }
    }

    var description: String {
        "\(scheme)://\(host)\(port.map { ":\($0)" } ?? "")\(path)"
            + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }
}
