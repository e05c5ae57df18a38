/// A bad value found deep inside nested parameters. The keys that lead to it are gathered while the encoder unwinds,
/// so the happy path pays nothing for error locations.
struct ParameterFault: Error {
    enum Kind {
        case nonFiniteNumber
        case emptyKey
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
        var result = ""
        for (offset, element) in reversedPath.reversed().enumerated() {
            switch element {
            case .key(let key) where offset == 0: result += key
            case .key(let key): result += "[\(key)]"
            case .index(let index): result += "[\(index)]"
            }
        }
        return result
    }

    var nalError: NALError {
        switch kind {
        case .nonFiniteNumber: .encoding(.nonFiniteNumber(keyPath: keyPath))
        case .emptyKey: .encoding(.emptyKey(keyPath: keyPath))
        }
    }
}

extension Dictionary where Key == String {
    /// Entries in key order, the order every NAL encoder writes them in so that output is deterministic.
    @inline(__always)
    var sortedByKey: [(key: String, value: Value)] {
        sorted { $0.key < $1.key }
    }
}
