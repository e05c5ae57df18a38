/// The one byte range a request's `Range` asks for (RFC 9110 §14.1.2), so that a cache can answer it from a whole
/// stored body with a 206.
package enum CacheRange {
    /// The offsets of a `length`-byte body that `header` asks for: `bytes=first-last`, `bytes=first-` or
    /// `bytes=-suffix`. `nil` for anything a cache leaves to the server: another unit, several ranges, a range past
    /// the end, or text that is not a range.
    package static func offsets(_ header: String, length: Int) -> ClosedRange<Int>? {
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes="), length > 0 else { return nil }
        let spec = text.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let firstText = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let lastText = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        if firstText.isEmpty {
            guard let suffix = number(lastText), suffix > 0 else { return nil }
            return max(0, length - suffix)...(length - 1)
        }
        guard let first = number(firstText), first < length else { return nil }
        guard !lastText.isEmpty else { return first...(length - 1) }
        guard let last = number(lastText), last >= first else { return nil }
        return first...min(last, length - 1)
    }

    /// Digits only, at most 18 of them: a number no body's length reaches is not read (and cannot overflow).
    private static func number(_ text: String) -> Int? {
        guard (1...18).contains(text.utf8.count),
            text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int(text)
    }
}
