extension URLEncodedFormEncoder.KeyEncoding {
    /// The key as it is written.
    func encode(_ key: String) -> String {
        switch self {
        case .useDefaultKeys: key
        case .convertToSnakeCase: Self.splitWords(key).joined(separator: "_")
        case .convertToKebabCase: Self.splitWords(key).joined(separator: "-")
        case .capitalized: key.prefix(1).uppercased() + key.dropFirst()
        case .uppercased: key.uppercased()
        case .lowercased: key.lowercased()
        case .custom(let transform): transform(key)
        }
    }

    /// Lower-cased words of a camel-case key. An acronym stays one word: `oneTwoURLThree` gives
    /// `one`, `two`, `url`, `three`. Leading and trailing underscores are kept, as `JSONEncoder` does.
    private static func splitWords(_ key: String) -> [String] {
        let characters = Array(key)
        guard let first = characters.firstIndex(where: { $0 != "_" }) else { return [key] }
        let last = characters.lastIndex(where: { $0 != "_" }) ?? first
        var words: [String] = []
        var current = ""
        for index in first...last {
            let character = characters[index]
            let startsWord =
                character.isUppercase && !current.isEmpty
                && (characters[index - 1].isLowercase || characters[index - 1].isNumber
                    || (index + 1 <= last && characters[index + 1].isLowercase))
            if startsWord {
                words.append(current)
                current = ""
            }
            current.append(character)
        }
        words.append(current)
        var lowered = words.map { $0.lowercased() }
        lowered[0] = String(characters[..<first]) + lowered[0]
        lowered[lowered.count - 1] += String(characters[(last + 1)...])
        return lowered
    }
}
