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
        var bytes = Array(subject.utf8)
        if caseInsensitive {
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            bytes = bytes.map(Self.lowercased)
        }
        guard anchoredAtEnd else { return found(in: bytes[...]) }
        // `$` also matches before a line terminator that ends the text.
        if found(in: bytes[...]) { return true }
        let terminator = Self.terminatorLength(atEndOf: bytes)
        return terminator > 0 && found(in: bytes.dropLast(terminator))
    }

    /// The bytes of the line terminator ICU sees at the end of `bytes` (CRLF, LF, CR, NEL, LS, PS), 0 without one.
    private static func terminatorLength(atEndOf bytes: [UInt8]) -> Int {
        if bytes.suffix(2).elementsEqual([0x0D, 0x0A]) { return 2 }
        if let last = bytes.last, last == 0x0A || last == 0x0D { return 1 }
        if bytes.suffix(2).elementsEqual([0xC2, 0x85]) { return 2 }
        if bytes.suffix(3).elementsEqual([0xE2, 0x80, 0xA8]) || bytes.suffix(3).elementsEqual([0xE2, 0x80, 0xA9]) {
            return 3
        }
        return 0
    }

    private func found(in bytes: ArraySlice<UInt8>) -> Bool {
        switch (anchoredAtStart, anchoredAtEnd) {
        case (true, true): bytes.elementsEqual(text)
        case (true, false): bytes.starts(with: text)
        case (false, true): bytes.count >= text.count && bytes.suffix(text.count).elementsEqual(text)
        case (false, false): contains(bytes)
        }
    }

    private func contains(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard bytes.count >= text.count else { return false }
        var start = bytes.startIndex
        while start + text.count <= bytes.endIndex {
            if bytes[start..<(start + text.count)].elementsEqual(text) { return true }
            start += 1
        }
        return false
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
    }
}
