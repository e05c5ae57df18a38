public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// Encodes parameters as a JSON body, with `Content-Type: application/json` unless one is already set.
///
/// Keys are sorted at every level by default, so the same parameters give the same bytes in every run and process:
/// stub body matchers, record and replay, and request signing need that. Opt out with `JSONEncoding(options: [])`.
///
/// The writer is NAL's own: it writes straight into a byte buffer and is several times faster than
/// `JSONSerialization`. Slashes are not escaped; NaN and infinity are rejected with the key path that holds them,
/// and nesting deeper than `ParameterValue.maximumNestingDepth` with `nestingTooDeep`.
public struct JSONEncoding: ParameterEncoding {
    /// How the JSON text is laid out.
    public struct Options: OptionSet, Sendable {
        /// The option bits.
        public let rawValue: Int
        /// Creates options from their bits.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// One member per line, indented by two spaces, with `" : "` between key and value.
        public static let prettyPrinted = Options(rawValue: 1 << 0)
        /// Object keys in ascending order, for deterministic bodies (fixtures, signatures, caching). On by default.
        public static let sortedKeys = Options(rawValue: 1 << 1)
    }

    /// Compact JSON with sorted keys.
    public static var `default`: JSONEncoding { JSONEncoding() }
    /// Indented JSON with sorted keys.
    public static var prettyPrinted: JSONEncoding { JSONEncoding(options: [.prettyPrinted, .sortedKeys]) }

    /// How the JSON text is laid out.
    public let options: Options

    /// Creates an encoding; keys are sorted unless `options` leaves out `.sortedKeys`.
    public init(options: Options = .sortedKeys) {
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
        return writer.output.makeData()
    }
}
