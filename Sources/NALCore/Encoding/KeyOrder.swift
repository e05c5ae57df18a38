/// Sorts keys the way `String`'s `<` does, comparing integers instead of strings wherever that gives the same answer.
///
/// Every encoder writes keys in `<` order. Comparing two `String`s costs a call into the standard library each time;
/// a sort key holds the first eight UTF-8 bytes of a key as one big-endian integer, and for ASCII keys integer order
/// is `<` order. Keys whose first eight bytes are equal, or that hold non-ASCII text (where `<` compares normalised
/// text), are compared as strings.
struct KeyOrder<Position> {
    let position: Position
    let prefix: UInt64
    let isASCII: Bool

    init(_ key: String, at position: Position) {
        self.position = position
        // A native string lends its bytes; walking `utf8` one element at a time costs several times more.
        let read =
            key.utf8.withContiguousStorageIfAvailable(Self.prefix(of:))
            ?? Self.prefix(of: Array(key.utf8))
        prefix = read.prefix
        isASCII = read.isASCII
    }

    /// The first eight bytes as a big-endian integer, short keys padded with zero bytes so that "ab" sorts before
    /// "abc"; and whether every byte is ASCII.
    private static func prefix(of bytes: UnsafeBufferPointer<UInt8>) -> (prefix: UInt64, isASCII: Bool) {
        guard let start = bytes.baseAddress else { return (0, true) }
        var prefix: UInt64
        if bytes.count >= 8 {
            // One load: the bytes in memory order, made big-endian so that the first byte is the most significant.
            prefix = UInt64(bigEndian: UnsafeRawPointer(start).loadUnaligned(as: UInt64.self))
        } else {
            prefix = 0
            for index in 0..<8 { prefix = prefix << 8 | (index < bytes.count ? UInt64(start[index]) : 0) }
        }
        var highBits: UInt8 = 0
        for byte in bytes { highBits |= byte }
        return (prefix, highBits < 0x80)
    }

    private static func prefix(of bytes: [UInt8]) -> (prefix: UInt64, isASCII: Bool) {
        bytes.withUnsafeBufferPointer(prefix(of:))
    }

    /// Whether the key of `self` sorts before that of `other`; `key` reads a key when the prefixes cannot decide.
    @inline(__always)
    func precedes(_ other: KeyOrder, key: (Position) -> String) -> Bool {
        if prefix != other.prefix, isASCII, other.isASCII { return prefix < other.prefix }
        return key(position) < key(other.position)
    }

    /// Sorts `slots` in place: insertion sort for the handful of keys parameters usually have, the standard sort
    /// beyond. Stable, so equal keys keep their order.
    static func sort(_ slots: UnsafeMutableBufferPointer<KeyOrder>, key: (Position) -> String) {
        guard slots.count > 1 else { return }
        if slots.count <= 16 {
            for index in 1..<slots.count {
                let moving = slots[index]
                var slot = index
                while slot > 0, moving.precedes(slots[slot - 1], key: key) {
                    slots[slot] = slots[slot - 1]
                    slot -= 1
                }
                slots[slot] = moving
            }
        } else {
            // Equal keys keep their order: the standard sort is not stable, so the original offset breaks ties.
            let sorted = slots.enumerated().sorted { first, second in
                if first.element.precedes(second.element, key: key) { return true }
                if second.element.precedes(first.element, key: key) { return false }
                return first.offset < second.offset
            }
            for (index, entry) in sorted.enumerated() { slots[index] = entry.element }
        }
    }
}
