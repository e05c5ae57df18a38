/// Parameters for a request: typed values rather than `[String: Any]`.
///
/// ```swift
/// let parameters: Parameters = ["q": "swift nio", "page": 2, "tags": ["server", "linux"], "filter": ["min": 10]]
/// ```
public typealias Parameters = [String: ParameterValue]

/// One parameter value. Expressible by string, integer, float, boolean, array, dictionary and `nil` literals.
///
/// Every encoder refuses values nested deeper than `maximumNestingDepth` containers with
/// `EncodingFailureReason.nestingTooDeep`, rather than overflowing the stack.
public enum ParameterValue: Sendable, Hashable {
    /// Text.
    case string(String)
    /// A whole number.
    case int(Int)
    /// A floating-point number. NaN and infinity are rejected when encoded.
    case double(Double)
    /// A boolean, encoded as `1`/`0` or `true`/`false` in queries depending on the encoding's options.
    case bool(Bool)
    /// A list of values.
    case array([ParameterValue])
    /// Nested values, encoded as `key[sub]=value` in queries and as objects in JSON.
    case dictionary([String: ParameterValue])
    /// No value: `null` in JSON, and an empty value (`key=`) in queries.
    case null
}

extension ParameterValue {
    /// The most containers (dictionaries and arrays, the top-level parameters included) that encoders accept
    /// nested inside each other: 512. Real APIs stay far below; the limit keeps hostile input from overflowing the
    /// stack.
    public static let maximumNestingDepth = 512
}
