import Foundation

/// Reads `application/x-www-form-urlencoded` text (`a=1&b=two+words`): the one form parser that matchers,
/// redaction and recordings share.
package enum FormFields {
    /// The fields in order, names and values unescaped (`+` is a space). A field without `=` has an empty value.
    package static func pairs(in text: some StringProtocol) -> [(name: String, value: String)] {
        text.split(separator: "&").map { field in
            guard let equals = field.firstIndex(of: "=") else { return (unescaped(field), "") }
            return (unescaped(field[..<equals]), unescaped(field[field.index(after: equals)...]))
        }
    }

    /// The fields by name; a repeated name keeps its first value.
    package static func dictionary(in text: some StringProtocol) -> [String: String] {
        var fields: [String: String] = [:]
        for (name, value) in pairs(in: text) where fields[name] == nil { fields[name] = value }
        return fields
    }

    /// `text` with the value of each field for which `replacement` returns text replaced by it; everything else,
    /// separators and escapes included, is kept as it was.
    package static func replacingValues(
        in text: some StringProtocol, _ replacement: (_ value: String) -> String?
    ) -> String {
        text.split(separator: "&", omittingEmptySubsequences: false).map { field -> String in
            guard let equals = field.firstIndex(of: "="),
                let replaced = replacement(unescaped(field[field.index(after: equals)...]))
            else { return String(field) }
            return field[...equals] + replaced
        }.joined(separator: "&")
    }

    /// A form name or value unescaped: `+` is a space, then percent escapes; text with a broken escape is kept as
    /// it is.
    package static func unescaped(_ text: some StringProtocol) -> String {
        let spaced = String(text).replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
