package import Foundation

/// Finds the first syntax error in a JSON text and where it is, for messages that point at the spot: Foundation's
/// parsers say only that the data is not valid JSON.
package struct JSONSyntax {
    package struct Problem: Error, Equatable {
        package let line: Int
        package let column: Int
        package let message: String
    }

    /// Containers nested deeper than this are refused rather than risking the stack.
    static let maximumDepth = 512

    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var lineStart = 0

    /// The first problem in `data`, or `nil` when it is valid JSON. A UTF-8 byte-order mark is skipped.
    package static func firstProblem(in data: Data) -> Problem? {
        var checker = JSONSyntax(bytes: Array(data))
        if checker.bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            checker.index = 3
            checker.lineStart = 3
        }
        do throws(Problem) {
            checker.skipWhitespace()
            try checker.value(depth: 0)
            checker.skipWhitespace()
            if checker.index < checker.bytes.count { throw checker.problem("unexpected text after the JSON value") }
            return nil
        } catch {
            return error
        }
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private func problem(_ message: String) -> Problem {
        // Columns count characters, not bytes: continuation bytes of UTF-8 do not start one.
        let column = bytes[lineStart..<min(index, bytes.count)].filter { $0 & 0xC0 != 0x80 }.count + 1
        return Problem(line: line, column: column, message: message)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
            index += 1
            if byte == 0x0A {
                line += 1
                lineStart = index
            }
        }
    }

    private mutating func expect(_ literal: String) throws(Problem) {
        for byte in literal.utf8 {
            guard current == byte else { throw problem("expected '\(literal)'") }
            index += 1
        }
    }

    private mutating func value(depth: Int) throws(Problem) {
        guard depth < Self.maximumDepth else { throw problem("nested more than \(Self.maximumDepth) levels deep") }
        guard let byte = current else { throw problem("the text ends where a value was expected") }
        switch byte {
        case UInt8(ascii: "{"): try container(keyed: true, depth: depth)
        case UInt8(ascii: "["): try container(keyed: false, depth: depth)
        case UInt8(ascii: "\""): try string()
        case UInt8(ascii: "t"): try expect("true")
        case UInt8(ascii: "f"): try expect("false")
        case UInt8(ascii: "n"): try expect("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        default: throw problem("unexpected character '\(Self.describe(byte))' where a value was expected")
        }
    }

    /// An object (`keyed`) or an array: values, with their keys in an object, separated by commas up to the
    /// closing bracket.
    private mutating func container(keyed: Bool, depth: Int) throws(Problem) {
        let close: Character = keyed ? "}" : "]"
        let name = keyed ? "an object" : "an array"
        index += 1
        skipWhitespace()
        if current == close.asciiValue {
            index += 1
            return
        }
        while true {
            if keyed {
                guard current == UInt8(ascii: "\"") else { throw problem("expected a key in quotes") }
                try string()
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { throw problem("expected ':' after the key") }
                index += 1
                skipWhitespace()
            }
            try value(depth: depth + 1)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case close.asciiValue:
                index += 1
                return
            case nil: throw problem("the text ends inside \(name); expected ',' or '\(close)'")
            default: throw problem("expected ',' or '\(close)' after a value in \(name)")
            }
        }
    }

    private mutating func string() throws(Problem) {
        index += 1
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return
            case UInt8(ascii: "\\"):
                index += 1
                guard let escaped = current, Array("\"\\/bfnrtu".utf8).contains(escaped) else {
                    throw problem("invalid escape in a string")
                }
                index += 1
                if escaped == UInt8(ascii: "u") {
                    let unit = try hexQuad()
                    if (0xDC00...0xDFFF).contains(unit) {
                        throw problem("a UTF-16 low surrogate (\\u) without its high one")
                    }
                    if (0xD800...0xDBFF).contains(unit) {
                        guard current == UInt8(ascii: "\\"), index + 1 < bytes.count,
                            bytes[index + 1] == UInt8(ascii: "u")
                        else { throw problem("a UTF-16 high surrogate (\\u) without its low one") }
                        index += 2
                        guard (0xDC00...0xDFFF).contains(try hexQuad()) else {
                            throw problem("a UTF-16 high surrogate (\\u) without its low one")
                        }
                    }
                }
            case 0..<0x20:
                throw problem("a control character inside a string; escape it")
            case 0x80...:
                try utf8Sequence()
            default:
                index += 1
            }
        }
        throw problem("the text ends inside a string")
    }

    /// Four hex digits after `\u`, as a number.
    private mutating func hexQuad() throws(Problem) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let hex = current, Self.isHexDigit(hex) else { throw problem("expected four hex digits after \\u") }
            value = value << 4 | UInt32(hex <= 0x39 ? hex - 0x30 : (hex | 0x20) - 0x61 + 10)
            index += 1
        }
        return value
    }

    /// One multi-byte UTF-8 character: a lead byte and its continuation bytes, no overlong or surrogate form.
    private mutating func utf8Sequence() throws(Problem) {
        let lead = bytes[index]
        let length: Int
        let minimum: UInt32
        switch lead {
        case 0xC2...0xDF: (length, minimum) = (2, 0x80)
        case 0xE0...0xEF: (length, minimum) = (3, 0x800)
        case 0xF0...0xF4: (length, minimum) = (4, 0x10000)
        default: throw problem("the byte \(Self.describe(lead)) is not UTF-8; save the file as UTF-8")
        }
        var value = UInt32(lead) & (0xFF >> (length + 1))
        for offset in 1..<length {
            guard index + offset < bytes.count, bytes[index + offset] & 0xC0 == 0x80 else {
                throw problem("the byte \(Self.describe(lead)) starts a UTF-8 character that is cut short")
            }
            value = value << 6 | UInt32(bytes[index + offset] & 0x3F)
        }
        guard value >= minimum, value <= 0x10FFFF, !(0xD800...0xDFFF).contains(value) else {
            throw problem("the bytes at this point are not valid UTF-8; save the file as UTF-8")
        }
        index += length
    }

    private mutating func number() throws(Problem) {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, Self.isDigit(first) else { throw problem("expected a digit") }
        if first == UInt8(ascii: "0") {
            index += 1
        } else {
            while let byte = current, Self.isDigit(byte) { index += 1 }
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard let byte = current, Self.isDigit(byte) else { throw problem("expected a digit after '.'") }
            while let byte = current, Self.isDigit(byte) { index += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let byte = current, Self.isDigit(byte) else { throw problem("expected a digit in the exponent") }
            while let byte = current, Self.isDigit(byte) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if let value = Double(text), !value.isFinite {
            index = start
            throw problem("the number \(text.prefix(40)) is too large for a 64-bit floating-point number")
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    private static func describe(_ byte: UInt8) -> String {
        (0x20..<0x7F).contains(byte) ? String(UnicodeScalar(byte)) : String(format: "\\x%02X", byte)
    }
}
