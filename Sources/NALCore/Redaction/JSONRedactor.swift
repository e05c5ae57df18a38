/// Copies JSON text, replacing the value of every sensitive object member with `"<redacted>"`, and every string
/// (value or key) for which `rewritesString` returns new text (a URL with secrets, a document inside a string, a
/// recorder's learned secrets).
///
/// A single forward scan with an explicit stack rather than recursion, so deeply nested or hostile input cannot
/// overflow the stack. It checks structure as far as redaction needs (balanced containers, members with keys,
/// terminated strings) and gives up with `nil` otherwise, so a caller never shows half-redacted text.
struct JSONRedactor {
    let input: [UInt8]
    let isSensitive: (String) -> Bool
    let rewritesString: ((String) -> String?)?
    private var output: [UInt8] = []
    private var index = 0

    init(
        input: [UInt8], isSensitive: @escaping (String) -> Bool, rewritesString: ((String) -> String?)? = nil
    ) {
        self.input = input
        self.isSensitive = isSensitive
        self.rewritesString = rewritesString
    }

    mutating func run() -> [UInt8]? {
        output.reserveCapacity(input.count)
        /// `true` for an object, `false` for an array.
        var containers: [Bool] = []
        var expectsKey = false
        var sawValue = false
        while true {
            copyWhitespace()
            guard index < input.count else { break }
            let byte = input[index]
            if containers.last == true && expectsKey {
                if byte == UInt8(ascii: "}") {
                    containers.removeLast()
                    copyByte()
                    expectsKey = false
                    continue
                }
                let keyStart = output.count
                guard byte == UInt8(ascii: "\""), let key = copyString() else { return nil }
                // A key can hold what a value can: a server that parses a body as a form may make the whole body
                // a key (httpbin's "form" of an untyped JSON body).
                if let rewritesString, let replacement = rewritesString(key) {
                    output.removeSubrange(keyStart...)
                    Self.appendQuoted(replacement, to: &output)
                }
                copyWhitespace()
                guard index < input.count, input[index] == UInt8(ascii: ":") else { return nil }
                copyByte()
                copyWhitespace()
                expectsKey = false
                if isSensitive(key) {
                    let start = index
                    guard skipValue(), index > start else { return nil }
                    output.append(contentsOf: Array("\"\(SensitiveData.marker)\"".utf8))
                    sawValue = true
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "{"):
                containers.append(true)
                expectsKey = true
                copyByte()
            case UInt8(ascii: "["):
                containers.append(false)
                copyByte()
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard let isObject = containers.popLast(), isObject == (byte == UInt8(ascii: "}")) else { return nil }
                copyByte()
            case UInt8(ascii: ","):
                guard let isObject = containers.last else { return nil }
                expectsKey = isObject
                copyByte()
            case UInt8(ascii: "\""):
                let start = output.count
                guard let text = copyString() else { return nil }
                if let rewritesString, let replacement = rewritesString(text) {
                    output.removeSubrange(start...)
                    Self.appendQuoted(replacement, to: &output)
                }
            default:
                guard copyScalar() else { return nil }
            }
            sawValue = true
        }
        return containers.isEmpty && sawValue ? output : nil
    }

    /// `text` as a JSON string token.
    static func appendQuoted(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                output += [UInt8(ascii: "\\"), byte]
            case 0..<0x20:
                output += Array("\\u00".utf8) + [Self.hexDigit(byte >> 4), Self.hexDigit(byte & 0xF)]
            default:
                output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    private mutating func copyByte() {
        output.append(input[index])
        index += 1
    }

    private mutating func copyWhitespace() {
        while index < input.count, Self.isWhitespace(input[index]) { copyByte() }
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// Copies a string token and returns its text as JSON reads it, escapes resolved, so that `"pass\u0077ord"`
    /// is the key `password`.
    private mutating func copyString() -> String? {
        let start = index
        guard skipString() else { return nil }
        output.append(contentsOf: input[start..<index])
        let inner = input[(start + 1)..<(index - 1)]
        guard inner.contains(UInt8(ascii: "\\")) else { return String(decoding: inner, as: UTF8.self) }
        return Self.unescaped(inner)
    }

    /// The text of a string token's contents, with `\n`, `\"`, `\uXXXX` and surrogate pairs resolved; a lone
    /// surrogate becomes U+FFFD, as JSON decoders read it.
    static func unescaped(_ inner: ArraySlice<UInt8>) -> String {
        var scalars = String.UnicodeScalarView()
        var pendingHigh: UInt32?
        var bytes: [UInt8] = []
        func flushBytes() {
            guard !bytes.isEmpty else { return }
            scalars.append(contentsOf: String(decoding: bytes, as: UTF8.self).unicodeScalars)
            bytes.removeAll()
        }
        func append(_ value: UInt32) {
            if let high = pendingHigh {
                pendingHigh = nil
                if (0xDC00...0xDFFF).contains(value) {
                    scalars.append(Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (value - 0xDC00)) ?? "\u{FFFD}")
                    return
                }
                scalars.append("\u{FFFD}")
            }
            if (0xD800...0xDBFF).contains(value) {
                pendingHigh = value
            } else {
                scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
            }
        }
        var position = inner.startIndex
        while position < inner.endIndex {
            let byte = inner[position]
            guard byte == UInt8(ascii: "\\"), position + 1 < inner.endIndex else {
                if pendingHigh != nil {
                    pendingHigh = nil
                    scalars.append("\u{FFFD}")
                }
                bytes.append(byte)
                position += 1
                continue
            }
            flushBytes()
            let escaped = inner[position + 1]
            position += 2
            switch escaped {
            case UInt8(ascii: "u"):
                let digits = inner[position..<min(position + 4, inner.endIndex)]
                let value = UInt32(String(decoding: digits, as: UTF8.self), radix: 16) ?? 0xFFFD
                position = min(position + 4, inner.endIndex)
                append(value)
                continue
            case UInt8(ascii: "n"): append(0x0A)
            case UInt8(ascii: "t"): append(0x09)
            case UInt8(ascii: "r"): append(0x0D)
            case UInt8(ascii: "b"): append(0x08)
            case UInt8(ascii: "f"): append(0x0C)
            default: append(UInt32(escaped))
            }
        }
        flushBytes()
        if pendingHigh != nil { scalars.append("\u{FFFD}") }
        return String(scalars)
    }

    /// Copies a number, `true`, `false` or `null`.
    private mutating func copyScalar() -> Bool {
        let start = index
        skipScalar()
        guard index > start else { return false }
        output.append(contentsOf: input[start..<index])
        return true
    }

    private mutating func skipString() -> Bool {
        guard index < input.count, input[index] == UInt8(ascii: "\"") else { return false }
        index += 1
        while index < input.count {
            switch input[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""):
                index += 1
                return true
            default: index += 1
            }
        }
        return false
    }

    private mutating func skipScalar() {
        while index < input.count {
            switch input[index] {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "E"):
                index += 1
            default: return
            }
        }
    }

    /// Skips one whole value, nested containers included, without copying it.
    private mutating func skipValue() -> Bool {
        guard index < input.count else { return false }
        switch input[index] {
        case UInt8(ascii: "\""):
            return skipString()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while index < input.count {
                switch input[index] {
                case UInt8(ascii: "\""):
                    guard skipString() else { return false }
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 {
                        index += 1
                        return true
                    }
                default: break
                }
                index += 1
            }
            return false
        default:
            let start = index
            skipScalar()
            return index > start
        }
    }
}
