package import Foundation
import NALSupport

/// A response head as a transport read it: the status, the version and the fields in arrival order, a repeated
/// name's values kept apart. Foundation's `HTTPURLResponse` is made of it only when someone asks for one.
package struct ResponseHead: Sendable {
    /// The URL the response came from.
    package let url: URL
    package let statusCode: Int
    /// The status line's version, such as `HTTP/1.1`.
    package let version: String
    package let fields: [(name: String, value: String)]
    /// The status line's reason phrase as the server sent it (empty when it sent none, as HTTP/2 never does), or
    /// `nil` when this head was not read from a status line (a cache's, a stub's): then `version` is a guess too.
    package let reasonPhrase: String?

    package init(
        url: URL, statusCode: Int, version: String, fields: [(name: String, value: String)],
        reasonPhrase: String? = nil
    ) {
        self.url = url
        self.statusCode = statusCode
        self.version = version
        self.fields = fields
        self.reasonPhrase = reasonPhrase
    }

    /// Fields that hold a single value, not a list (RFC 9110): sent more than once with the same value, they are
    /// kept once, as RFC 9110 §8.6 allows for `Content-Length`, instead of becoming "6, 6" or a comma-joined URL.
    package static let singleValued: Set<String> = [
        "content-length", "content-type", "content-location", "content-range", "location", "etag", "last-modified",
        "retry-after", "date", "expires", "age",
    ]

    /// The value of each field named `name`, in any letter case, in arrival order.
    package func values(of name: String) -> [String] {
        fields.filter { HTTPToken.equalsIgnoringASCIICase($0.name, name) }.map(\.value)
    }

    /// The values of the fields named `name`, in any letter case, joined with ", " as `HTTPURLResponse` holds them
    /// (a single-valued field repeated with the same value, once); `nil` when there is none.
    package func value(of name: String) -> String? {
        let all = values(of: name)
        return all.isEmpty ? nil : Self.combined(all, name: name.lowercased())
    }

    /// The fields by name as `HTTPURLResponse` takes them: a repeated name's values joined with ", " as URLSession
    /// does, under the letter case of its first appearance (a single-valued field repeated with the same value,
    /// once).
    package var joinedFields: [String: String] {
        var grouped: [String: (name: String, values: [String])] = [:]
        for (name, value) in fields {
            grouped[name.lowercased(), default: (name, [])].values.append(value)
        }
        var joined: [String: String] = [:]
        for (key, group) in grouped {
            joined[group.name] = Self.combined(group.values, name: key)
        }
        return joined
    }

    /// One field's values, at least one, as one: joined, or once for a single-valued field that repeats one value.
    private static func combined(_ values: [String], name: String) -> String {
        let first = values[0]
        if values.count == 1 || (singleValued.contains(name) && values.allSatisfy { $0 == first }) { return first }
        return values.joined(separator: ", ")
    }
}
