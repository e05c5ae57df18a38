import Foundation

/// Reads `application/x-www-form-urlencoded` text (`a=1&b=two+words`): the one form parser that matchers,
/// redaction and recordings share.
package enum FormFields {
    /// The fields in order, split at `&` (or `separators`), names and values unescaped (`+` is a space). A field without `=` has an empty value.
    /// Fields split at the bytes `&` and `=`, never inside a character: a combining mark after `&` does not hide
    /// the separator.
    package static func pairs(
        in text: some StringProtocol, separators: Set<UInt8> = [UInt8(ascii: "&")]
    ) -> [(name: String, value: String)] {
        fields(of: text, separators: separators).filter { !$0.isEmpty }.map { field in
            guard let equals = field.firstIndex(of: UInt8(ascii: "=")) else { return (unescaped(decode(field)), "") }
            return (unescaped(decode(field[..<equals])), unescaped(decode(field[(equals + 1)...])))
        }
    }

    /// The fields of `text` as bytes, split at every `&` or other separator (empty ones included).
    package static func fields(
        of text: some StringProtocol, separators: Set<UInt8> = [UInt8(ascii: "&")]
    ) -> [ArraySlice<UInt8>] {
        Array(text.utf8).split(omittingEmptySubsequences: false) { separators.contains($0) }
    }

    private static func decode(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
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
        fields(of: text).map { field -> String in
            guard let equals = field.firstIndex(of: UInt8(ascii: "=")),
                let replaced = replacement(unescaped(decode(field[(equals + 1)...])))
            else { return decode(field) }
            return decode(field[...equals]) + replaced
        }.joined(separator: "&")
    }

    /// A form name or value unescaped: `+` is a space, then percent escapes; text with a broken escape is kept as
    /// it is.
    package static func unescaped(_ text: some StringProtocol) -> String {
        let spaced = String(text).replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
