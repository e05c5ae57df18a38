/// Response headers with case-insensitive lookup (RFC 9110 §5.1), in the order the server sent them.
public struct HTTPHeaders: Sendable, Equatable, Sequence {
    /// Name and value pairs, names as received.
    public private(set) var fields: [(name: String, value: String)]

    /// Creates headers from pairs.
    public init(_ fields: [(name: String, value: String)] = []) {
        self.fields = fields
    }

    /// The value of the first field named `name`, in any letter case.
    public subscript(_ name: String) -> String? {
        let lowered = name.lowercased()
        return fields.first { $0.name.lowercased() == lowered }?.value
    }

    /// Number of fields.
    public var count: Int { fields.count }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    /// Whether both hold the same fields in the same order.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }
}
