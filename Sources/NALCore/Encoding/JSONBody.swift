import Foundation

/// Encodes `Encodable` bodies with `JSONEncoder`, turning its errors into `NALError`.
enum JSONBody {
    /// Never mutated, so one instance can serve every request (`JSONEncoder` is `Sendable`).
    static let sharedEncoder = JSONEncoder()

    static func encode(_ value: any Encodable, with encoder: JSONEncoder) throws(NALError) -> Data {
        do {
            return try encoder.encode(value)
        } catch EncodingError.invalidValue(let invalid, let context) where isNonFinite(invalid) {
            throw .encoding(.nonFiniteNumber(keyPath: CodingPathRenderer.keyPath(context.codingPath)))
        } catch {
            throw .encoding(.encodableFailed(type: String(describing: type(of: value)), underlying: error))
        }
    }

    private static func isNonFinite(_ value: Any) -> Bool {
        switch value {
        case let double as Double: !double.isFinite
        case let float as Float: !float.isFinite
        default: false
        }
    }
}

/// Renders a coding path in the same notation as parameter key paths: `filter[min]`, `tags[0]`.
enum CodingPathRenderer {
    static func keyPath(_ codingPath: [any CodingKey]) -> String {
        var result = ""
        for (offset, key) in codingPath.enumerated() {
            if let index = key.intValue, key.stringValue.hasPrefix("Index ") || key.stringValue == String(index) {
                result += "[\(index)]"
            } else if offset == 0 {
                result += key.stringValue
            } else {
                result += "[\(key.stringValue)]"
            }
        }
        return result
    }
}
