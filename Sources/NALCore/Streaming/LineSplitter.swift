/// Splits bytes into lines ended by LF, CRLF or a lone CR, across chunk boundaries: a CR that ends one chunk and an
/// LF that starts the next are one line ending. Complete lines are handed over without copying when they lie inside
/// one chunk; only the unfinished tail of a chunk is kept.
///
/// A line longer than `maximumLineLength` is not kept: its bytes up to the next line ending are dropped and the
/// caller is told once, with `.overlong` and the line's start, so that memory stays bounded whatever a server sends.
package struct LineSplitter: Sendable {
    /// What `feed` hands over.
    package enum Piece {
        /// A complete line, without its ending; valid only during the call.
        case line(UnsafeRawBufferPointer)
        /// A line passed `maximumLineLength` and is being dropped. Its first bytes come with it (at least 64, or
        /// `maximumLineLength + 1` when that is fewer), valid only during the call, so the caller can tell what it was.
        case overlong(start: UnsafeRawBufferPointer)
    }

    package let maximumLineLength: Int
    private var partial: [UInt8] = []
    /// The last chunk ended with a CR: an LF starting the next chunk belongs to that line ending.
    private var skipsLeadingLF = false
    /// Dropping the rest of an overlong line until its ending.
    private var discarding = false

    package init(maximumLineLength: Int) {
        self.maximumLineLength = max(1, maximumLineLength)
    }

    /// Whether a line has started and not ended yet.
    package var hasPartialLine: Bool { !partial.isEmpty || discarding }

    /// Splits `bytes`, calling `body` with each complete line (and `.overlong` for a line that is too long).
    package mutating func feed(_ bytes: UnsafeRawBufferPointer, _ body: (Piece) -> Void) {
        var index = 0
        let count = bytes.count
        if skipsLeadingLF, count > 0 {
            skipsLeadingLF = false
            if bytes[0] == 0x0A { index = 1 }
        }
        var lineStart = index
        while index < count {
            let byte = bytes[index]
            guard byte == 0x0A || byte == 0x0D else {
                index += 1
                continue
            }
            deliver(UnsafeRawBufferPointer(rebasing: bytes[lineStart..<index]), body)
            index += 1
            if byte == 0x0D {
                if index == count {
                    skipsLeadingLF = true
                } else if bytes[index] == 0x0A {
                    index += 1
                }
            }
            lineStart = index
        }
        if lineStart < count { keep(UnsafeRawBufferPointer(rebasing: bytes[lineStart..<count]), body) }
    }

    /// The last line of the input when it has no line ending, or `nil`; the splitter starts afresh.
    package mutating func finish() -> [UInt8]? {
        defer {
            partial = []
            discarding = false
            skipsLeadingLF = false
        }
        return partial.isEmpty || discarding ? nil : partial
    }

    /// Hands over a line whose ending was found: straight from the chunk, or joined with the kept start.
    private mutating func deliver(_ tail: UnsafeRawBufferPointer, _ body: (Piece) -> Void) {
        if discarding {
            discarding = false
            return
        }
        if partial.isEmpty {
            if tail.count > maximumLineLength { return body(.overlong(start: tail)) }
            return body(.line(tail))
        }
        guard partial.count + tail.count <= maximumLineLength else {
            return dropPartial(after: tail, body)
        }
        partial.append(contentsOf: tail)
        partial.withUnsafeBytes { body(.line($0)) }
        partial.removeAll(keepingCapacity: true)
    }

    /// Keeps the unfinished start of a line for the next chunk.
    private mutating func keep(_ bytes: UnsafeRawBufferPointer, _ body: (Piece) -> Void) {
        guard !discarding else { return }
        guard partial.count + bytes.count <= maximumLineLength else {
            discarding = true
            return dropPartial(after: bytes, body)
        }
        partial.append(contentsOf: bytes)
    }

    /// Reports the line made of what was kept and `bytes` as overlong, with at least its first `reportedStart`
    /// bytes (all of them when it has fewer), and forgets it.
    private mutating func dropPartial(after bytes: UnsafeRawBufferPointer, _ body: (Piece) -> Void) {
        if partial.isEmpty {
            body(.overlong(start: bytes))
        } else {
            if partial.count < Self.reportedStart {
                partial.append(contentsOf: bytes.prefix(Self.reportedStart - partial.count))
            }
            partial.withUnsafeBytes { body(.overlong(start: $0)) }
        }
        partial.removeAll(keepingCapacity: false)
    }

    /// Enough of an overlong line's start to read a field name from it.
    private static let reportedStart = 64
}
