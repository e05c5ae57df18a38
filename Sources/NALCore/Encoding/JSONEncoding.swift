public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// Encodes parameters as a JSON body, with `Content-Type: application/json` unless one is already set.
///
/// The writer is NAL's own: it writes straight into a byte buffer and is several times faster than
/// `JSONSerialization`. Slashes are not escaped; NaN and infinity are rejected with the key path that holds them.
public struct JSONEncoding: ParameterEncoding {
    /// How the JSON text is laid out.
    public struct Options: OptionSet, Sendable {
        /// The option bits.
        public let rawValue: Int
        /// Creates options from their bits.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// One member per line, indented by two spaces, with `" : "` between key and value.
        public static let prettyPrinted = Options(rawValue: 1 << 0)
        /// Object keys in ascending order, for deterministic bodies (fixtures, signatures, caching).
        public static let sortedKeys = Options(rawValue: 1 << 1)
    }

    /// Compact JSON.
    public static var `default`: JSONEncoding { JSONEncoding() }
    /// Indented JSON.
    public static var prettyPrinted: JSONEncoding { JSONEncoding(options: .prettyPrinted) }

    /// How the JSON text is laid out.
    public let options: Options

    /// Creates an encoding.
    public init(options: Options = []) {
        self.options = options
    }

    /// Returns `request` with `parameters` as its JSON body.
    public func encode(_ request: URLRequest, with parameters: Parameters) throws -> URLRequest {
        var request = request
        request.httpBody = try data(parameters)
        request.setContentTypeIfMissing("application/json")
        return request
    }

    /// The parameters as JSON bytes.
    public func data(_ parameters: Parameters) throws(NALError) -> Data {
        var writer = JSONWriter(
            prettyPrinted: options.contains(.prettyPrinted),
            sortedKeys: options.contains(.sortedKeys)
        )
        do { try writer.writeObject(parameters) } catch { throw error.nalError }
        return Data(writer.output)
    }
}
