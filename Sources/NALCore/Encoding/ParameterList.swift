/// Parameters kept as a list of pairs instead of a dictionary, for `RequestType.parameterList(_:encoding:)`.
///
/// An endpoint builds its parameters on every call. A `Parameters` dictionary hashes every key as it is built; a
/// list only stores its pairs (a nested dictionary value is still a dictionary), so preparing the request costs
/// less. The encoded output is the same as for the same pairs in `Parameters`: keys sorted at every level (Alamofire
/// sorts the top level only).
///
/// ```swift
/// case .search(let text):
///     .parameterList(["q": .string(text), "page": 2, "tags": ["server", "linux"]], encoding: .default)
/// ```
///
/// Unlike a dictionary literal, a list may repeat a key: every pair is written, repeated keys in the order given
/// (`tag=a&tag=b`), and nothing is dropped.
public struct ParameterList: Sendable, ExpressibleByDictionaryLiteral {
    /// The pairs in the order given: the literal's own array, kept as it came (no copy).
    var entries: [(String, ParameterValue)]

    /// Creates a list from pairs of unescaped keys and values.
    public init(_ pairs: [(String, ParameterValue)] = []) {
        entries = pairs
    }

    /// Creates a list from a dictionary's entries.
    public init(_ parameters: Parameters) {
        entries = parameters.map { ($0.key, $0.value) }
    }

    /// Creates a list from a literal, keeping every pair, repeated keys included.
    public init(dictionaryLiteral elements: (String, ParameterValue)...) {
        entries = elements
    }

    /// The pairs in the order given, as a new array (O(n)).
    public var pairs: [(name: String, value: ParameterValue)] { entries.map { (name: $0.0, value: $0.1) } }

    /// How many pairs the list holds.
    public var count: Int { entries.count }

    /// Whether the list has no pair.
    public var isEmpty: Bool { entries.isEmpty }

    /// Adds a pair at the end.
    public mutating func append(_ name: String, _ value: ParameterValue) {
        entries.append((name, value))
    }
}
