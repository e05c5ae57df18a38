/// `Content-Range` (RFC 9110 §14.4): `bytes 100-199/1000` for a part, `bytes */1000` for an unsatisfiable range.
/// Numbers that do not fit in 63 bits are refused, not trapped on, and so is a last byte at `Int64.max`: the length
/// it ends (`end + 1`) would not fit.
package struct ContentRange: Equatable {
    /// The part sent: first and last byte, or `nil` in `bytes */N`.
    package let range: (start: Int64, end: Int64)?
    /// The whole representation's size, or `nil` for `*`.
    package let total: Int64?

    var start: Int64? { range?.start }

    package init?(_ header: String) {
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst(6).split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard spec.count == 2 else { return nil }
        let totalText = spec[1].trimmingCharacters(in: .whitespaces)
        if totalText == "*" {
            total = nil
        } else {
            guard let value = Self.number(totalText) else { return nil }
            total = value
        }
        let rangeText = spec[0].trimmingCharacters(in: .whitespaces)
        if rangeText == "*" {
            guard total != nil else { return nil }
            range = nil
            return
        }
        let bounds = rangeText.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let start = Self.number(bounds[0]), let end = Self.number(bounds[1]), start <= end,
            end < Int64.max, total.map({ end < $0 }) ?? true
        else { return nil }
        range = (start, end)
    }

    package static func == (lhs: ContentRange, rhs: ContentRange) -> Bool {
        lhs.total == rhs.total && lhs.range?.start == rhs.range?.start && lhs.range?.end == rhs.range?.end
    }

    /// Digits only, no sign, within `Int64`.
    private static func number(_ text: some StringProtocol) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return Int64(text)
    }
}
