/// Checks of header names, header values and methods against RFC 9110, so that no prepared request can smuggle a
/// second request or header through CR, LF or NUL.
enum HTTPToken {
    /// `token = 1*tchar` (RFC 9110 §5.6.2).
    static func isValid(_ token: String) -> Bool {
        guard !token.isEmpty else { return false }
        return token.utf8.allSatisfy(isTokenCharacter)
    }

    @inline(__always)
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// Why a header value cannot be sent, or `nil` when it can. Only CR, LF and NUL are refused: they end a header
    /// line early. Other bytes are the server's business.
    static func problem(inValue value: String) -> String? {
        for (offset, byte) in value.utf8.enumerated() {
            switch byte {
            case 0x0D: return "contains CR (0x0D) at byte offset \(offset)"
            case 0x0A: return "contains LF (0x0A) at byte offset \(offset)"
            case 0x00: return "contains NUL (0x00) at byte offset \(offset)"
            default: continue
            }
        }
        return nil
    }
}
