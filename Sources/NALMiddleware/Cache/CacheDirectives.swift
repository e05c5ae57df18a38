/// The directives of `Cache-Control` fields (RFC 9111 §5.2), of a request or a response.
///
/// Names are case-insensitive; a value may be a token or a quoted string. Numbers saturate at 2^31 seconds, as §1.2.2
/// asks; a number that cannot be read makes the directive's value 0 (a stale response, never a longer life). When a
/// directive comes twice, the first is used (§4.2.1).
package struct CacheDirectives: Sendable, Equatable {
    private var values: [String: String?] = [:]

    /// The largest number of seconds read: 2^31 (RFC 9111 §1.2.2).
    package static let largestSeconds = 2_147_483_648

    /// Reads the directives of every `Cache-Control` field value in `fields`, in order.
    package init(_ fields: [String]) {
        for field in fields {
            for (name, value) in Self.directives(in: field) where values[name] == nil {
                values[name] = .some(value)
            }
        }
    }

    /// Whether `name` is present, with or without a value.
    func has(_ name: String) -> Bool { values[name] != nil }

    /// Whether `name` is present with a value.
    func hasValue(_ name: String) -> Bool { (values[name] ?? nil) != nil }

    /// The value of `name`, `nil` when it is absent or has none.
    func value(_ name: String) -> String? { values[name] ?? nil }

    /// The number of seconds of `name`, `nil` when it is absent; 0 when its value is not a number.
    package func seconds(_ name: String) -> Int? {
        guard let value = values[name] else { return nil }
        return Self.deltaSeconds(value ?? "")
    }

    /// Whether there are no directives at all.
    var isEmpty: Bool { values.isEmpty }

    /// delta-seconds: digits only, saturating at 2^31; anything else is 0.
    static func deltaSeconds(_ text: String) -> Int {
        let digits = text.utf8
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return 0
        }
        var result = 0
        for digit in digits {
            result = result * 10 + Int(digit - UInt8(ascii: "0"))
            if result >= largestSeconds { return largestSeconds }
        }
        return result
    }

    /// The `name[=value]` pairs of one field value, names lowercased, quoted values unquoted. Read byte by byte:
    /// it runs for every stored response a cache serves.
    private static func directives(in field: String) -> [(String, String?)] {
        let bytes = Array(field.utf8)
        let (comma, equals, quote, backslash) = (
            UInt8(ascii: ","), UInt8(ascii: "="), UInt8(ascii: "\""), UInt8(ascii: "\\")
        )
        var result: [(String, String?)] = []
        var index = 0
        while index < bytes.count {
            while index < bytes.count, isBlank(bytes[index]) || bytes[index] == comma { index += 1 }
            let nameStart = index
            while index < bytes.count, bytes[index] != equals, bytes[index] != comma { index += 1 }
            let name = trimmed(bytes[nameStart..<index]).map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
            var value: String?
            if index < bytes.count, bytes[index] == equals {
                index += 1
                if index < bytes.count, bytes[index] == quote {
                    var unquoted: [UInt8] = []
                    index += 1
                    while index < bytes.count, bytes[index] != quote {
                        if bytes[index] == backslash, index + 1 < bytes.count { index += 1 }
                        unquoted.append(bytes[index])
                        index += 1
                    }
                    value = String(decoding: unquoted, as: UTF8.self)
                    while index < bytes.count, bytes[index] != comma { index += 1 }
                } else {
                    let valueStart = index
                    while index < bytes.count, bytes[index] != comma { index += 1 }
                    value = String(decoding: trimmed(bytes[valueStart..<index]), as: UTF8.self)
                }
            }
            if !name.isEmpty { result.append((String(decoding: name, as: UTF8.self), value)) }
        }
        return result
    }

    private static func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }

    /// `bytes` without the spaces and tabs at either end.
    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard let first = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) })
        else { return [] }
        return bytes[first...last]
    }
}
