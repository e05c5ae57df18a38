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
        let raw = UnsafeRawPointer(start)
        let count = bytes.count
        // Whole-word loads rather than a loop per byte: keys are read once per key on every request.
        let prefix: UInt64
        var highBits: UInt64
        if count >= 8 {
            // One load: the bytes in memory order, made big-endian so that the first byte is the most significant.
            prefix = UInt64(bigEndian: raw.loadUnaligned(as: UInt64.self))
            highBits = prefix
            var offset = 8
            while offset < count {
                // The last word overlaps the one before it rather than reading past the key.
                highBits |= raw.loadUnaligned(fromByteOffset: min(offset, count &- 8), as: UInt64.self)
                offset &+= 8
            }
        } else if count >= 4 {
            // Two overlapping words: the last one's bytes land where they belong, and where the two overlap they
            // hold the same bytes.
            let head = UInt64(UInt32(bigEndian: raw.loadUnaligned(as: UInt32.self)))
            let tail = UInt64(UInt32(bigEndian: raw.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self)))
            prefix = head << 32 | tail << (8 &* (8 &- count))
            highBits = prefix
        } else {
            var value: UInt64 = 0
            for index in 0..<count { value |= UInt64(start[index]) << (8 &* (7 &- index)) }
            prefix = value
            highBits = value
        }
        return (prefix, highBits & 0x8080_8080_8080_8080 == 0)
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
