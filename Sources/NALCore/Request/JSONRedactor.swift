/// Copies JSON text, replacing the value of every sensitive object member with `"<redacted>"`.
///
/// A single forward scan with an explicit stack rather than recursion, so deeply nested or hostile input cannot
/// overflow the stack. It checks structure as far as redaction needs (balanced containers, members with keys,
/// terminated strings) and gives up with `nil` otherwise, so a caller never shows half-redacted text.
struct JSONRedactor {
    let input: [UInt8]
    let isSensitive: (String) -> Bool
    private var output: [UInt8] = []
    private var index = 0

    init(input: [UInt8], isSensitive: @escaping (String) -> Bool) {
        self.input = input
        self.isSensitive = isSensitive
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
                guard byte == UInt8(ascii: "\""), let key = copyString() else { return nil }
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
                guard copyString() != nil else { return nil }
            default:
                guard copyScalar() else { return nil }
            }
            sawValue = true
        }
        return containers.isEmpty && sawValue ? output : nil
    }

    private mutating func copyByte() {
        output.append(input[index])
        index += 1
    }

    private mutating func copyWhitespace() {
        while index < input.count, Self.isWhitespace(input[index]) { copyByte() }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// Copies a string token and returns its text with simple escapes resolved (enough to compare keys).
    private mutating func copyString() -> String? {
        let start = index
        guard skipString() else { return nil }
        output.append(contentsOf: input[start..<index])
        let inner = input[(start + 1)..<(index - 1)]
        guard inner.contains(UInt8(ascii: "\\")) else { return String(decoding: inner, as: UTF8.self) }
        var text: [UInt8] = []
        var escaped = false
        for byte in inner {
            if escaped {
                text.append(byte)
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else {
                text.append(byte)
            }
        }
        return String(decoding: text, as: UTF8.self)
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
