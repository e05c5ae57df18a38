/// Writes parameters as JSON text (RFC 8259) straight into a byte buffer.
struct JSONWriter: ~Copyable {
    let prettyPrinted: Bool
    let sortedKeys: Bool
    var output = ByteBuffer(capacity: 256)

    init(prettyPrinted: Bool, sortedKeys: Bool) {
        self.prettyPrinted = prettyPrinted
        self.sortedKeys = sortedKeys
    }

    /// `depth` counts the containers around `object`; the top-level parameters are at 0.
    mutating func writeObject(_ object: [String: ParameterValue], depth: Int = 0) throws(ParameterFault) {
        guard depth < ParameterValue.maximumNestingDepth else { throw ParameterFault(.nestingTooDeep) }
        guard !object.isEmpty else {
            output.append(UInt8(ascii: "{"))
            output.append(UInt8(ascii: "}"))
            return
        }
        output.append(UInt8(ascii: "{"))
        var first = true
        if sortedKeys {
            try object.forEachSortedByKey { (key, value) throws(ParameterFault) in
                try writeMember(key, value, depth: depth, first: &first)
            }
        } else {
            for (key, value) in object {
                try writeMember(key, value, depth: depth, first: &first)
            }
        }
        writeNewline(depth: depth)
        output.append(UInt8(ascii: "}"))
    }

    @inline(__always)
    private mutating func writeMember(
        _ key: String, _ value: ParameterValue, depth: Int, first: inout Bool
    ) throws(ParameterFault) {
        guard !key.isEmpty else { throw ParameterFault(.emptyKey) }
        if !first { output.append(UInt8(ascii: ",")) }
        first = false
        writeNewline(depth: depth + 1)
        writeString(key)
        if prettyPrinted {
            output.append(UInt8(ascii: " "))
            output.append(UInt8(ascii: ":"))
            output.append(UInt8(ascii: " "))
        } else {
            output.append(UInt8(ascii: ":"))
        }
        do { try writeValue(value, depth: depth + 1) } catch { throw error.under(.key(key)) }
    }

    private mutating func writeValue(_ value: ParameterValue, depth: Int) throws(ParameterFault) {
        switch value {
        case .string(let string):
            writeString(string)
        case .int(let int):
            output.appendDecimal(int)
        case .double(let double):
            guard double.isFinite else { throw ParameterFault(.nonFiniteNumber) }
            // The shortest text that reads back as the same double; `1e+20` and `5e-324` are valid JSON numbers.
            output.appendUTF8(double.description)
        case .bool(let bool):
            output.appendUTF8(bool ? "true" : "false")
        case .null:
            output.appendUTF8("null")
        case .dictionary(let dictionary):
            try writeObject(dictionary, depth: depth)
        case .array(let elements):
            guard depth < ParameterValue.maximumNestingDepth else { throw ParameterFault(.nestingTooDeep) }
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                writeNewline(depth: depth + 1)
                do { try writeValue(element, depth: depth + 1) } catch { throw error.under(.index(index)) }
            }
            if !elements.isEmpty { writeNewline(depth: depth) }
            output.append(UInt8(ascii: "]"))
        }
    }

    private mutating func writeString(_ string: String) {
        output.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { bytes in
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                    output.append(UInt8(ascii: "\\"))
                    output.append(byte)
                case 0x0A: appendShortEscape(UInt8(ascii: "n"))
                case 0x0D: appendShortEscape(UInt8(ascii: "r"))
                case 0x09: appendShortEscape(UInt8(ascii: "t"))
                case 0x08: appendShortEscape(UInt8(ascii: "b"))
                case 0x0C: appendShortEscape(UInt8(ascii: "f"))
                case 0x00..<0x20:
                    output.appendUTF8("\\u00")
                    output.append(hexDigit(byte >> 4))
                    output.append(hexDigit(byte & 0x0F))
                default:
                    output.append(byte)
                }
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    @inline(__always)
    private mutating func appendShortEscape(_ letter: UInt8) {
        output.append(UInt8(ascii: "\\"))
        output.append(letter)
    }

    @inline(__always)
    private func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &+ (nibble &- 10)
    }

    /// Pretty printing puts each member on its own line, indented by two spaces per level.
    @inline(__always)
    private mutating func writeNewline(depth: Int) {
        guard prettyPrinted else { return }
        output.append(UInt8(ascii: "\n"))
        for _ in 0..<(depth * 2) { output.append(UInt8(ascii: " ")) }
    }
}
