/// Checks of header names, header values and methods against RFC 9110, so that no prepared request can smuggle a
/// second request or header.
package enum HTTPToken {
    /// `token = 1*tchar` (RFC 9110 §5.6.2).
    package static func isValid(_ token: String) -> Bool {
        guard !token.isEmpty else { return false }
        return token.utf8.allSatisfy(isTokenCharacter)
    }

    @inline(__always)
    package static func isTokenCharacter(_ byte: UInt8) -> Bool {
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

    /// Why a header value cannot be sent, or `nil` when it can. RFC 9110's `field-value` allows visible ASCII,
    /// space, horizontal tab and bytes from 0x80; every other control character is refused. CR, LF and NUL are
    /// named because they are how a value smuggles a second header or request.
    package static func problem(inValue value: String) -> String? {
        for (offset, byte) in value.utf8.enumerated() {
            switch byte {
            case 0x0D: return "contains CR (0x0D) at byte offset \(offset)"
            case 0x0A: return "contains LF (0x0A) at byte offset \(offset)"
            case 0x00: return "contains NUL (0x00) at byte offset \(offset)"
            case 0x01...0x08, 0x0B...0x1F, 0x7F:
                return "contains the control character \(hexByte(byte)) at byte offset \(offset)"
            default: continue
            }
        }
        return nil
    }

    /// `0x1B`, as error messages write a byte.
    package static func hexByte(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return "0x" + (digits.count == 1 ? "0" + digits : digits)
    }

    /// Headers that decide where a message ends or which connection carries it. NAL and URLSession set them from
    /// the body and the URL; a value from an endpoint or a hook could make the server read part of the body as a
    /// second request (request smuggling), so they are refused wherever they come from.
    package static let framingHeaderNames = ["Content-Length", "Transfer-Encoding", "Host", "Connection", "Upgrade"]

    /// The canonical spelling of `name` if it is a framing header, in any letter case.
    package static func framingHeader(_ name: String) -> String? {
        framingHeaderNames.first { equalsIgnoringASCIICase($0, name) }
    }

    /// Whether two header names are equal ignoring ASCII letter case, without allocating.
    package static func equalsIgnoringASCIICase(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        while let leftByte = left.next(), let rightByte = right.next() {
            guard lowered(leftByte) == lowered(rightByte) else { return false }
        }
        return true
    }

    @inline(__always)
    private static func lowered(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
