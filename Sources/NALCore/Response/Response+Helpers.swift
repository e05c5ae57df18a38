public import Foundation

extension Response {
    /// The body as text, or `nil` when it is not valid in `encoding`.
    public func string(encoding: String.Encoding = .utf8) -> String? {
        String(data: data, encoding: encoding)
    }

    /// The body parsed as JSON into typed values (`ParameterValue`), never `Any`.
    public func json() throws(NALError) -> ParameterValue {
        try decode(ParameterValue.self)
    }

    /// Decodes the body, or the value at a dotted key path such as `"data.items"`.
    ///
    /// Failures are `NALError.decoding` with the type, the key path and the whole response.
    public func decode<T: Decodable>(
        _ type: T.Type, atKeyPath keyPath: String? = nil, using decoder: JSONDecoder = JSONDecoder()
    ) throws(NALError) -> T {
        do {
            guard let keyPath, !keyPath.isEmpty else { return try decoder.decode(T.self, from: data) }
            return try decoder.decode(T.self, from: try Self.extract(keyPath: keyPath, from: data))
        } catch {
            throw .decoding(
                DecodingFailure(type: String(describing: T.self), keyPath: keyPath, underlying: error, response: self))
        }
    }

    /// This response if its status code is in `statusCodes`; otherwise `NALError.unacceptableStatusCode`.
    public func filter(statusCodes: some RangeExpression<Int>) throws(NALError) -> Response {
        guard statusCodes.contains(statusCode) else { throw .unacceptableStatusCode(self) }
        return self
    }

    /// This response if its status code is 200..<300; otherwise `NALError.unacceptableStatusCode`.
    public func filterSuccessfulStatusCodes() throws(NALError) -> Response {
        try filter(statusCodes: 200..<300)
    }

    /// The JSON text at `keyPath`, re-serialised so any `JSONDecoder` configuration applies to it.
    private static func extract(keyPath: String, from data: Data) throws -> Data {
        var value = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        var walked: [String] = []
        for key in keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
            walked.append(key)
            if let object = value as? [String: Any], let next = object[key] {
                value = next
            } else if let array = value as? [Any], let index = Int(key), array.indices.contains(index) {
                value = array[index]
            } else {
                throw DecodingError.keyNotFound(
                    KeyPathComponent(key),
                    .init(
                        codingPath: walked.dropLast().map(KeyPathComponent.init),
                        debugDescription: "no value at '\(walked.joined(separator: "."))'"))
            }
        }
        return try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])
    }
}

/// One component of a dotted key path, as a coding key for error context.
private struct KeyPathComponent: CodingKey {
    let stringValue: String
    var intValue: Int? { Int(stringValue) }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { stringValue = String(intValue) }
}
