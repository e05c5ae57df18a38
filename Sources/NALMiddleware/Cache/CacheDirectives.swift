/// The directives of `Cache-Control` fields (RFC 9111 §5.2), of a request or a response.
///
/// Names are case-insensitive; a value may be a token or a quoted string. Numbers saturate at 2^31 seconds, as §1.2.2
/// asks; a number that cannot be read makes the directive's value 0 (a stale response, never a longer life). When a
/// directive comes twice, the first is used (§4.2.1).
struct CacheDirectives: Sendable, Equatable {
    private var values: [String: String?] = [:]

    /// The largest number of seconds read: 2^31 (RFC 9111 §1.2.2).
    static let largestSeconds = 2_147_483_648

    /// Reads the directives of every `Cache-Control` field value in `fields`, in order.
    init(_ fields: [String]) {
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

    /// The number of seconds of `name`, `nil` when it is absent; 0 when its value is not a number.
    func seconds(_ name: String) -> Int? {
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

    /// The `name[=value]` pairs of one field value, names lowercased, quoted values unquoted.
    private static func directives(in field: String) -> [(String, String?)] {
        var result: [(String, String?)] = []
        var characters = Substring(field)
        while !characters.isEmpty {
            characters = characters.drop { $0 == " " || $0 == "\t" || $0 == "," }
            let name = characters.prefix { $0 != "=" && $0 != "," }
            characters = characters.dropFirst(name.count)
            var value: String?
            if characters.first == "=" {
                characters = characters.dropFirst()
                if characters.first == "\"" {
                    var unquoted = ""
                    var index = characters.index(after: characters.startIndex)
                    while index < characters.endIndex, characters[index] != "\"" {
                        if characters[index] == "\\", characters.index(after: index) < characters.endIndex {
                            index = characters.index(after: index)
                        }
                        unquoted.append(characters[index])
                        index = characters.index(after: index)
                    }
                    value = unquoted
                    characters = characters[(index < characters.endIndex ? characters.index(after: index) : index)...]
                    characters = characters.drop { $0 != "," }
                } else {
                    let token = characters.prefix { $0 != "," }
                    characters = characters.dropFirst(token.count)
                    value = token.trimmingWhitespace()
                }
            }
            let trimmed = name.trimmingWhitespace().lowercased()
            if !trimmed.isEmpty { result.append((trimmed, value)) }
        }
        return result
    }
}

extension Substring {
    /// Without the spaces and tabs at either end.
    fileprivate func trimmingWhitespace() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
