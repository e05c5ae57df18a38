/// Percent-encoding byte by byte (RFC 3986 §2.1), with upper-case hex digits.
enum PercentEncoding {
    /// Characters left as they are in query keys and values. This is Alamofire's set: the unreserved characters
    /// plus `/` and `?`. Everything else, `:#[]@!$&'()*+,;=` included, is escaped so that servers cannot misread it.
    @inline(__always)
    static func isQueryAllowed(_ byte: UInt8) -> Bool {
        // One bit per ASCII byte, in two words: a shift and a mask instead of a chain of range checks.
        byte < 64
            ? (queryAllowedLow >> UInt64(byte)) & 1 != 0
            : byte < 128 ? (queryAllowedHigh >> UInt64(byte &- 64)) & 1 != 0 : false
    }

    /// Bytes 0 to 63 left as they are in a query: `-./`, the digits and `?`.
    private static let queryAllowedLow: UInt64 = 0x83FF_E000_0000_0000
    /// Bytes 64 to 127: the letters, `_` and `~`.
    private static let queryAllowedHigh: UInt64 = 0x47FF_FFFE_87FF_FFFE

    /// `pchar` of RFC 3986 §3.3 without `%`: characters a single path segment may hold literally.
    @inline(__always)
    static func isSegmentAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
            UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"):
            true
        default:
            false
        }
    }

    @inline(__always)
    static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"):
            true
        default:
            false
        }
    }

    @inline(__always)
    static func appendEscaped(_ byte: UInt8, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "%"))
        output.append(hexDigit(byte >> 4))
        output.append(hexDigit(byte & 0x0F))
    }

    @inline(__always)
    static func appendEscaped(_ byte: UInt8, to output: inout ByteBuffer) {
        output.append(UInt8(ascii: "%"))
        output.append(hexDigit(byte >> 4))
        output.append(hexDigit(byte & 0x0F))
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "A") &+ (nibble &- 10)
    }

    /// Appends `string` escaped for a query key or value. With `spaceAsPlus`, a space becomes `+` (HTML forms).
    /// Runs of bytes that need no escape are copied in one go.
    @inline(__always)
    static func appendQueryEscaped(_ string: String, spaceAsPlus: Bool = false, to output: inout ByteBuffer) {
        // A native string lends its bytes without a copy; anything else is made contiguous first.
        if string.utf8.withContiguousStorageIfAvailable({
            appendQueryEscaped(bytes: $0, spaceAsPlus: spaceAsPlus, to: &output)
        }) == nil {
            var string = string
            string.withUTF8 { appendQueryEscaped(bytes: $0, spaceAsPlus: spaceAsPlus, to: &output) }
        }
    }

    static func appendQueryEscaped(bytes: UnsafeBufferPointer<UInt8>, spaceAsPlus: Bool, to output: inout ByteBuffer) {
        var runStart = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if !isQueryAllowed(byte) {
                if runStart < index {
                    output.append(UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                }
                if spaceAsPlus && byte == UInt8(ascii: " ") {
                    output.append(UInt8(ascii: "+"))
                } else {
                    appendEscaped(byte, to: &output)
                }
                runStart = index + 1
            }
            index += 1
        }
        if runStart < bytes.count {
            output.append(UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
        }
    }
}
