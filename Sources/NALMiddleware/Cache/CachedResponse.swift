import Foundation
import NALSupport

/// A response as the cache keeps it: its head, its body, the request header values its `Vary` names, and when it
/// was asked for and received (for its age, RFC 9111 §4.2.3). What every hit reads (its directives, its initial age,
/// its lifetime) is worked out once, when it is made.
struct CachedResponse: Sendable {
    let statusCode: Int
    /// The response's header fields, in order, without the hop-by-hop ones.
    let fields: [(name: String, value: String)]
    let body: Data
    /// The lowercased names `Vary` lists, with the values the request that stored it had (`nil`: absent).
    var varying: [(name: String, value: String?)]
    /// When the request that fetched it (or last revalidated it) was sent, and when its response arrived.
    let requestTime: Date
    let responseTime: Date
    /// The response's cache directives.
    let directives: CacheDirectives
    /// Its corrected initial age in seconds (§4.2.3): how old it was when it arrived.
    let initialAge: Double
    /// Seconds for which it is fresh from its making (§4.2.1); 0 when it is stale at once.
    let lifetime: Int

    init(
        statusCode: Int, fields: [(name: String, value: String)], body: Data,
        varying: [(name: String, value: String?)], requestTime: Date, responseTime: Date
    ) {
        self.statusCode = statusCode
        self.fields = fields
        self.body = body
        self.varying = varying
        self.requestTime = requestTime
        self.responseTime = responseTime
        directives = CacheDirectives(Self.values("Cache-Control", in: fields))
        let date =
            Self.values("Date", in: fields).first.flatMap { HTTPDate.parse($0, now: responseTime) } ?? responseTime
        initialAge = CacheFreshness.initialAge(
            date: date, age: Self.values("Age", in: fields).first, requestTime: requestTime, responseTime: responseTime)
        lifetime = CacheFreshness.lifetime(
            status: statusCode, directives: directives, date: date, expires: Self.values("Expires", in: fields),
            lastModified: Self.values("Last-Modified", in: fields).first)
    }

    /// The values of every field named `name`, in order.
    func values(_ name: String) -> [String] { Self.values(name, in: fields) }

    /// The first value of `name`.
    func value(_ name: String) -> String? {
        fields.first { HTTPToken.equalsIgnoringASCIICase($0.name, name) }?.value
    }

    private static func values(_ name: String, in fields: [(name: String, value: String)]) -> [String] {
        fields.filter { HTTPToken.equalsIgnoringASCIICase($0.name, name) }.map(\.value)
    }

    /// Roughly the memory it takes: its body and its fields.
    var cost: Int {
        fields.reduce(body.count + 256) { $0 + $1.name.utf8.count + $1.value.utf8.count + 32 }
    }

    /// Whether a request with `headers` selects this response (RFC 9111 §4.1): every field `Vary` names has the
    /// same value, whitespace around commas aside.
    func matches(_ headers: [String: String]) -> Bool {
        guard !varying.isEmpty else { return true }
        let requested = Self.lowercasedNames(headers)
        return varying.allSatisfy { name, value in Self.normalized(requested[name]) == Self.normalized(value) }
    }

    /// `headers` by lowercased name (the first of two spellings wins), so that each `Vary` name is one lookup.
    static func lowercasedNames(_ headers: [String: String]) -> [String: String] {
        Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// A field value with the whitespace around its list items taken away, so that `a,b` and `a, b` match.
    static func normalized(_ value: String?) -> String? {
        value.map { text in
            text.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ",")
        }
    }
}
