/// A bad value found deep inside nested parameters. The keys that lead to it are gathered while the encoder unwinds,
/// so the happy path pays nothing for error locations.
struct ParameterFault: Error {
    enum Kind {
        case nonFiniteNumber
        case emptyKey
        case nestingTooDeep
    }

    enum PathElement {
        case key(String)
        case index(Int)
    }

    let kind: Kind
    /// Innermost element first.
    private(set) var reversedPath: [PathElement] = []

    init(_ kind: Kind) {
        self.kind = kind
    }

    func under(_ element: PathElement) -> ParameterFault {
        var copy = self
        copy.reversedPath.append(element)
        return copy
    }

    /// The location in query notation: `filter[min]`, `tags[0]`.
    var keyPath: String {
        KeyPathNotation.render(reversedPath.reversed())
    }

    var nalError: NALError {
        switch kind {
        case .nonFiniteNumber: .encoding(.nonFiniteNumber(keyPath: keyPath))
        case .emptyKey: .encoding(.emptyKey(keyPath: keyPath))
        case .nestingTooDeep: .encoding(.nestingTooDeep(keyPath: keyPath, limit: ParameterValue.maximumNestingDepth))
        }
    }
}

/// Key paths in the notation every NAL encoder and error uses: `filter[min]`, `tags[0]`, `[0]` for an array at
/// the top.
enum KeyPathNotation {
    static func render(_ path: some Sequence<ParameterFault.PathElement>) -> String {
        var result = ""
        for (offset, element) in path.enumerated() {
            switch element {
            case .key(let key) where offset == 0: result += key
            case .key(let key): result += "[\(key)]"
            case .index(let index): result += "[\(index)]"
            }
        }
        return result
    }

    /// A `Codable` coding path in the same notation.
    static func render(codingPath: [any CodingKey]) -> String {
        render(
            codingPath.map { key -> ParameterFault.PathElement in
                if let index = key.intValue, key.stringValue.hasPrefix("Index ") || key.stringValue == String(index) {
                    return .index(index)
                }
                return .key(key.stringValue)
            })
    }
}
