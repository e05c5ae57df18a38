/// Appends ASCII and UTF-8 into a byte array. Request preparation builds URLs and bodies here rather than through
/// `URLComponents` and `addingPercentEncoding`, which dominate the cost of preparing a request.
extension Array where Element == UInt8 {
    @inline(__always)
    mutating func appendUTF8(_ string: String) {
        var string = string
        string.withUTF8 { append(contentsOf: $0) }
    }

    /// Appends a decimal integer without going through `String`.
    mutating func appendDecimal(_ value: Int) {
        if value < 0 { append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        if magnitude < 10 {
            append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude))
            return
        }
        // Digits are made last first, into a stack buffer written from its end: 20 digits hold any `UInt64`.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            while magnitude > 0 {
                start -= 1
                digits.initializeElement(at: start, to: UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10))
                magnitude /= 10
            }
            append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }
}
