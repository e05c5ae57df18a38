import Foundation

/// A growable byte buffer that request preparation writes URLs and query text into.
///
/// An `Array` append checks that the array is uniquely referenced, through a call, before every write; a URL with a
/// query is some 200 such writes. This buffer cannot be copied, so it is always unique: an append checks the capacity
/// and stores. It frees the memory it allocated when it goes; a buffer over borrowed scratch (`init(borrowing:)`) frees
/// nothing it did not allocate, and must end before the scratch does.
struct ByteBuffer: ~Copyable {
    /// `nil` while the buffer has no memory (a new empty buffer, or one whose bytes were taken); may point at
    /// borrowed scratch.
    private var base: UnsafeMutablePointer<UInt8>?
    private(set) var count = 0
    private var capacity = 0
    /// Whether `base` is this buffer's to free; a buffer over borrowed scratch memory owns nothing until it grows.
    private var ownsStorage = true

    /// An empty buffer with room for `capacity` bytes.
    init(capacity: Int = 0) {
        if capacity > 0 {
            base = .allocate(capacity: capacity)
            self.capacity = capacity
        }
    }

    /// An empty buffer that writes into `scratch` (stack memory, typically) until it needs more room, and then
    /// moves to memory of its own. The caller must end the buffer before `scratch` goes.
    init(borrowing scratch: UnsafeMutableBufferPointer<UInt8>) {
        base = scratch.baseAddress
        capacity = scratch.count
        ownsStorage = false
    }

    deinit {
        if ownsStorage { base?.deallocate() }
    }

    var isEmpty: Bool { count == 0 }

    /// The last byte, or `nil`.
    var last: UInt8? {
        guard count > 0, let base else { return nil }
        return base[count - 1]
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if count == capacity { grow(toHold: 1) }
        // `grow` leaves `base` set.
        base.unsafelyUnwrapped[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if capacity - count < bytes.count { grow(toHold: bytes.count) }
        let target = base.unsafelyUnwrapped + count
        // Most runs are a few bytes (a key, `%5B`, a short value), where a call to memmove costs more than the copy.
        if bytes.count <= 16 {
            Self.copySmall(from: source, to: target, count: bytes.count)
        } else {
            target.initialize(from: source, count: bytes.count)
        }
        count += bytes.count
    }

    /// Copies 1 to 16 bytes: as two overlapping words from 4 bytes on, byte by byte below. A plain byte loop would
    /// do, but the compiler turns it back into a call to memcpy.
    @inline(__always)
    private static func copySmall(
        from source: UnsafePointer<UInt8>, to target: UnsafeMutablePointer<UInt8>, count: Int
    ) {
        assert((1...16).contains(count), "copySmall copies 1 to 16 bytes")
        let from = UnsafeRawPointer(source)
        let to = UnsafeMutableRawPointer(target)
        if count >= 8 {
            let head = from.loadUnaligned(as: UInt64.self)
            let tail = from.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
            to.storeBytes(of: head, as: UInt64.self)
            to.storeBytes(of: tail, toByteOffset: count &- 8, as: UInt64.self)
        } else if count >= 4 {
            let head = from.loadUnaligned(as: UInt32.self)
            let tail = from.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self)
            to.storeBytes(of: head, as: UInt32.self)
            to.storeBytes(of: tail, toByteOffset: count &- 4, as: UInt32.self)
        } else {
            // 1 to 3 bytes: the first, the middle and the last cover them all.
            let first = source[0]
            let middle = source[count >> 1]
            let last = source[count &- 1]
            target[0] = first
            target[count >> 1] = middle
            target[count &- 1] = last
        }
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    /// Appends the bytes of another buffer.
    mutating func append(_ other: borrowing ByteBuffer) {
        other.withBytes { append($0) }
    }

    mutating func appendUTF8(_ string: String) {
        if string.utf8.withContiguousStorageIfAvailable({ append($0) }) == nil {
            var string = string
            string.withUTF8 { append($0) }
        }
    }

    /// Appends a decimal integer without going through `String`.
    mutating func appendDecimal(_ value: Int) {
        if value < 0 { append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        if magnitude < 10 { return append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude)) }
        // Digits come last first, into a stack buffer written from its end: 20 digits hold any `UInt64`.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            while magnitude > 0 {
                start -= 1
                digits.initializeElement(at: start, to: UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10))
                magnitude /= 10
            }
            append(UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Drops the bytes after the first `length`.
    mutating func truncate(to length: Int) {
        count = min(count, max(0, length))
    }

    mutating func removeLast() {
        if count > 0 { count -= 1 }
    }

    /// Moves the bytes out, leaving this buffer empty and unallocated. A buffer over borrowed scratch hands on the
    /// borrowed pointer: the taken buffer must end, or be given back, before the scratch does.
    mutating func take() -> ByteBuffer {
        var taken = ByteBuffer()
        swap(&taken.base, &base)
        swap(&taken.count, &count)
        swap(&taken.capacity, &capacity)
        swap(&taken.ownsStorage, &ownsStorage)
        return taken
    }

    /// Calls `body` with the bytes, valid only during the call.
    func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    /// The bytes as text (invalid UTF-8 is repaired, as `String(decoding:as:)` does).
    func makeString() -> String {
        withBytes { String(decoding: $0, as: UTF8.self) }
    }

    func makeArray() -> [UInt8] {
        withBytes { Array($0) }
    }

    func makeData() -> Data {
        withBytes { Data(buffer: $0) }
    }

    /// Makes room for `extra` more bytes: at least double the capacity, so that appends cost O(1) amortised.
    @inline(never)
    private mutating func grow(toHold extra: Int) {
        let needed = count + extra
        let newCapacity = max(needed, capacity * 2, 64)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        if let base {
            newBase.initialize(from: base, count: count)
            if ownsStorage { base.deallocate() }
        }
        base = newBase
        capacity = newCapacity
        ownsStorage = true
    }
}
