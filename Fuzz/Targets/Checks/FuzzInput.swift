/// A property that a fuzz check found broken, in words: what was expected, and what came out.
package struct FuzzFailure: Error, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }

    /// Throws when `condition` is false.
    package static func check(_ condition: Bool, _ message: @autoclosure () -> String) throws(FuzzFailure) {
        if !condition { throw FuzzFailure(message()) }
    }
}

/// Reads structured values from a fuzzer's bytes: each call takes what it needs from the front, and an exhausted
/// input gives zeros and empty strings, so every input decodes to something.
package struct FuzzInput {
    private var bytes: ArraySlice<UInt8>

    package init(_ bytes: some Sequence<UInt8>) {
        self.bytes = ArraySlice(bytes)
    }

    package var isEmpty: Bool { bytes.isEmpty }

    /// The bytes not read yet.
    package var rest: [UInt8] { Array(bytes) }

    package mutating func byte() -> UInt8 {
        bytes.popFirst() ?? 0
    }

    package mutating func bool() -> Bool {
        byte() & 1 == 1
    }

    /// A number from 0 to `bound - 1` (at most 256).
    package mutating func choice(_ bound: Int) -> Int {
        bound <= 1 ? 0 : Int(byte()) % bound
    }

    /// A 64-bit number from the next eight bytes.
    package mutating func int64() -> Int64 {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
        return Int64(bitPattern: value)
    }

    /// Up to `maximum` bytes, the count taken from the input.
    package mutating func bytes(maximum: Int) -> [UInt8] {
        let count = min(Int(byte()), maximum, bytes.count)
        defer { bytes = bytes.dropFirst(count) }
        return Array(bytes.prefix(count))
    }

    /// A string of up to `maximum` bytes, decoded as UTF-8 with replacement.
    package mutating func string(maximum: Int) -> String {
        String(decoding: bytes(maximum: maximum), as: UTF8.self)
    }
}
