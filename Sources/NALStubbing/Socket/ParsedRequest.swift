package import Foundation
import NALSupport

/// One HTTP/1.1 request as the stub listener read it off a connection: the request line, the fields in the order
/// they came, and the whole body, de-chunked.
package struct ParsedRequest: Sendable, Equatable {
    /// The method, as sent (a token).
    package var method: String
    /// The request target: an origin form (`/path?query`), an absolute form, or `*`.
    package var target: String
    /// Whether the request line said HTTP/1.0 (else HTTP/1.1).
    package var isHTTP10: Bool
    /// The header fields, names and values as sent (values trimmed of surrounding spaces).
    package var fields: [HTTPField]
    /// The body: a `Content-Length` body or a chunked one, de-chunked; empty without one.
    package var body: Data

    /// A header field.
    package struct HTTPField: Sendable, Equatable {
        package var name: String
        package var value: String
    }

    /// The values of the fields named `name`, in any letter case, in order.
    package func values(of name: String) -> [String] {
        fields.filter { HTTPToken.equalsIgnoringASCIICase($0.name, name) }.map(\.value)
    }

    /// The fields named `name` joined with ", ", or `nil` without one.
    package func value(of name: String) -> String? {
        let all = values(of: name)
        return all.isEmpty ? nil : all.joined(separator: ", ")
    }

    /// Whether the connection stays open after the answer: HTTP/1.1 unless `Connection: close`; HTTP/1.0 only with
    /// `Connection: keep-alive`.
    package var keepsAlive: Bool {
        var close = false
        var keepAlive = false
        for field in fields where HTTPToken.equalsIgnoringASCIICase(field.name, "Connection") {
            for item in field.value.split(separator: ",") {
                switch Self.listItem(item) {
                case "close": close = true
                case "keep-alive": keepAlive = true
                default: break
                }
            }
        }
        return isHTTP10 ? keepAlive && !close : !close
    }

    /// An item of a field's comma-separated list as framing compares it: without spaces and tabs around it, ASCII
    /// letters in lower case, and nothing else folded (a Unicode space or a Kelvin sign stays what it is, so that
    /// `chun\u{212A}ed` is not `chunked`).
    static func listItem(_ item: Substring) -> String {
        var scalars = item.unicodeScalars[...]
        while let first = scalars.first, first == " " || first == "\t" { scalars = scalars.dropFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars = scalars.dropLast() }
        var folded = String.UnicodeScalarView()
        for scalar in scalars {
            folded.append(
                ("A"..."Z").contains(scalar) ? Unicode.Scalar(UInt8(truncatingIfNeeded: scalar.value + 32)) : scalar)
        }
        return String(folded)
    }

    /// The header fields as a `RecordedRequest` holds them: repeated fields joined as RFC 9110 §5.3
    /// combines them, under the first spelling of the name.
    var recordedHeaders: [String: String] {
        // A few fields each: a scan finds a repeated name for less than hashing lower-cased copies would cost.
        var merged: [(name: String, value: String)] = []
        merged.reserveCapacity(fields.count)
        for field in fields {
            if let index = merged.firstIndex(where: { HTTPToken.equalsIgnoringASCIICase($0.name, field.name) }) {
                merged[index].value += ", " + field.value
            } else {
                merged.append((field.name, field.value))
            }
        }
        return Dictionary(merged, uniquingKeysWith: { first, _ in first })
    }

    /// Whether the method's answer carries no body (`HEAD`).
    package var isHead: Bool { method == "HEAD" }
}
