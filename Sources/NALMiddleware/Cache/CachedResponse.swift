import Foundation

/// A response as the cache keeps it: its head, its body, the request header values its `Vary` names, and when it
/// was asked for and received (for its age, RFC 9111 §4.2.3).
struct CachedResponse: Sendable {
    var statusCode: Int
    /// The response's header fields, in order, without the hop-by-hop ones.
    var fields: [(name: String, value: String)]
    var body: Data
    /// The lowercased names `Vary` lists, with the values the request that stored it had (`nil`: absent).
    var varying: [(name: String, value: String?)]
    /// When the request that fetched it (or last revalidated it) was sent, and when its response arrived.
    var requestTime: Date
    var responseTime: Date

    /// The values of every field named `name`, in order.
    func values(_ name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    /// The first value of `name`.
    func value(_ name: String) -> String? { values(name).first }

    /// The response's cache directives.
    var directives: CacheDirectives { CacheDirectives(values("Cache-Control")) }

    /// Roughly the memory it takes: its body and its fields.
    var cost: Int {
        fields.reduce(body.count + 256) { $0 + $1.name.utf8.count + $1.value.utf8.count + 32 }
    }

    /// Whether a request with `headers` selects this response (RFC 9111 §4.1): every field `Vary` names has the
    /// same value, whitespace around commas aside.
    func matches(_ headers: [String: String]) -> Bool {
        varying.allSatisfy { name, value in
            let requested = headers.first { $0.key.lowercased() == name }?.value
            return Self.normalized(requested) == Self.normalized(value)
        }
    }

    /// A field value with the whitespace around its list items taken away, so that `a,b` and `a, b` match.
    static func normalized(_ value: String?) -> String? {
        value.map { text in
            text.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ",")
        }
    }
}
