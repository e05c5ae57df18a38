/// A regular expression that is plain ASCII text between optional anchors (`/users/octocat$`, `.tail` files'
/// `^(?:GET)$`), matched without the regex engine: most patterns stubs use are of this kind, and ICU costs more
/// than the rest of a stub server's lookup.
///
/// It answers exactly as the regex would, or not at all (`nil`) where it cannot be sure: a case-insensitive match
/// against text that is not ASCII (ICU folds `K`, the Kelvin sign, to `k`).
package struct LiteralPattern: Sendable, Equatable {
    /// The text, in lower case when the match ignores case.
    private let text: [UInt8]
    private let anchoredAtStart: Bool
    private let anchoredAtEnd: Bool
    private let caseInsensitive: Bool

    /// The characters with a meaning in an ICU pattern, outside a character class.
    private static let special = Set("\\^$.|?*+()[]{}".utf8)

    /// The literal `pattern` stands for; `nil` when it is anything more.
    package init?(_ pattern: String, caseInsensitive: Bool) {
        var body = Substring(pattern)
        var atStart = false
        var atEnd = false
        if body.hasPrefix("^") {
            atStart = true
            body = body.dropFirst()
        }
        if body.hasSuffix("$") {
            atEnd = true
            body = body.dropLast()
        }
        // A non-capturing group around the whole text groups nothing.
        if body.hasPrefix("(?:"), body.hasSuffix(")") { body = body.dropFirst(3).dropLast() }
        guard !body.isEmpty, body.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && !Self.special.contains($0) }) else {
            return nil
        }
        text = caseInsensitive ? Array(body.utf8.map(Self.lowercased)) : Array(body.utf8)
        anchoredAtStart = atStart
        anchoredAtEnd = atEnd
        self.caseInsensitive = caseInsensitive
    }

    /// Whether `subject` matches, as `NSRegularExpression.firstMatch` would find; `nil` when only the regex can
    /// tell.
    package func matches(_ subject: String) -> Bool? {
        var subject = subject
        // Over the string's own bytes: a copy per request cost more than the comparison.
        return subject.withUTF8 { matches($0) }
    }

    private func matches(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
        if caseInsensitive, bytes.contains(where: { $0 >= 0x80 }) { return nil }
        let whole = bytes[...]
        guard anchoredAtEnd else { return found(in: whole) }
        // `$` also matches before a line terminator that ends the text.
        if found(in: whole) { return true }
        let terminator = Self.terminatorLength(atEndOf: whole)
        return terminator > 0 && found(in: whole.dropLast(terminator))
    }

    /// The bytes of the line terminator ICU sees at the end of `bytes` (CRLF, LF, VT, FF, CR, NEL, LS, PS), 0
    /// without one.
    private static func terminatorLength(atEndOf bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Int {
        if bytes.suffix(2).elementsEqual([0x0D, 0x0A]) { return 2 }
        if let last = bytes.last, (0x0A...0x0D).contains(last) { return 1 }
        if bytes.suffix(2).elementsEqual([0xC2, 0x85]) { return 2 }
        if bytes.suffix(3).elementsEqual([0xE2, 0x80, 0xA8]) || bytes.suffix(3).elementsEqual([0xE2, 0x80, 0xA9]) {
            return 3
        }
        return 0
    }

    private func found(in bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        guard bytes.count >= text.count else { return false }
        switch (anchoredAtStart, anchoredAtEnd) {
        case (true, true): return bytes.count == text.count && isText(at: bytes.startIndex, in: bytes)
        case (true, false): return isText(at: bytes.startIndex, in: bytes)
        case (false, true): return isText(at: bytes.endIndex - text.count, in: bytes)
        case (false, false):
            var start = bytes.startIndex
            while start + text.count <= bytes.endIndex {
                if isText(at: start, in: bytes) { return true }
                start += 1
            }
            return false
        }
    }

    /// Whether the text is at `start` in `bytes`, which hold at least its length from there.
    private func isText(at start: Int, in bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        for (offset, expected) in text.enumerated() {
            let byte = bytes[start + offset]
            guard (caseInsensitive ? Self.lowercased(byte) : byte) == expected else { return false }
        }
        return true
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
    }
}
