import Foundation

/// Encodes `Encodable` bodies with `JSONEncoder`, turning its errors into `NALError`.
enum JSONBody {
    /// The encoder of `.jsonEncodable`: keys sorted, so the same value gives the same bytes in every process
    /// (stub matching, record and replay, and request signing depend on it). Never mutated after creation, so one
    /// instance serves every request (`JSONEncoder` is `Sendable`). Pass your own with `.customJSONEncodable`.
    static let sharedEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    static func encode(_ value: any Encodable, with encoder: JSONEncoder) throws(NALError) -> Data {
        do {
            return try encoder.encode(value)
        } catch EncodingError.invalidValue(let invalid, let context) where isNonFinite(invalid) {
            throw .encoding(.nonFiniteNumber(keyPath: KeyPathNotation.render(codingPath: context.codingPath)))
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
