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

    package init(url: URL, statusCode: Int, version: String, fields: [(name: String, value: String)]) {
        self.url = url
        self.statusCode = statusCode
        self.version = version
        self.fields = fields
    }

    /// The values of the fields named `name`, in any letter case, joined with ", " as `HTTPURLResponse` holds them;
    /// `nil` when there is none.
    package func value(of name: String) -> String? {
        var joined: String?
        for field in fields where HTTPToken.equalsIgnoringASCIICase(field.name, name) {
            joined = joined.map { $0 + ", " + field.value } ?? field.value
        }
        return joined
    }

    /// The fields by name as `HTTPURLResponse` takes them: a repeated name's values joined with ", " as URLSession
    /// does, under the letter case of its first appearance.
    package var joinedFields: [String: String] {
        var joined: [String: String] = [:]
        var names: [String: String] = [:]
        for (name, value) in fields {
            let key = name.lowercased()
            if let existing = names[key] {
                joined[existing, default: ""] += ", " + value
            } else {
                names[key] = name
                joined[name] = value
            }
        }
        return joined
    }
}
