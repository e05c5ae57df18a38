extension ParameterValue: ExpressibleByStringLiteral {
    /// Creates a `.string`.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension ParameterValue: ExpressibleByIntegerLiteral {
    /// Creates an `.int`.
    public init(integerLiteral value: Int) { self = .int(value) }
}

extension ParameterValue: ExpressibleByFloatLiteral {
    /// Creates a `.double`.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension ParameterValue: ExpressibleByBooleanLiteral {
    /// Creates a `.bool`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension ParameterValue: ExpressibleByArrayLiteral {
    /// Creates an `.array`.
    public init(arrayLiteral elements: ParameterValue...) { self = .array(elements) }
}

extension ParameterValue: ExpressibleByDictionaryLiteral {
    /// Creates a `.dictionary`. A repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, ParameterValue)...) {
        // Inserted one by one into a dictionary sized at once: `init(_:uniquingKeysWith:)` costs twice as much.
        var dictionary = [String: ParameterValue](minimumCapacity: elements.count)
        for (key, value) in elements { dictionary[key] = value }
        self = .dictionary(dictionary)
    }
}

extension ParameterValue: ExpressibleByNilLiteral {
    /// Creates `.null`.
    public init(nilLiteral: ()) { self = .null }
}
