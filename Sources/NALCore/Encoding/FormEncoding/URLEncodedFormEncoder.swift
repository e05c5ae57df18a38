public import Foundation

/// Turns an `Encodable` value into `application/x-www-form-urlencoded` text, for a query (`encodableQuery`) or a
/// body (`formEncodable`).
///
/// The value must encode as a keyed container. Nested values follow `URLEncoding`'s conventions (`key[sub]=v`,
/// arrays per `arrayEncoding`), keys are sorted, and an optional that is `nil` is left out. Values nested deeper
/// than `ParameterValue.maximumNestingDepth` containers are refused with `nestingTooDeep`.
public struct URLEncodedFormEncoder: Sendable {
    /// How `Date` values are written.
    public enum DateEncoding: Sendable {
        /// Whatever `Date.encode(to:)` writes: seconds since 2001-01-01. The default, as in `JSONEncoder`.
        case deferredToDate
        /// Seconds since 1970-01-01.
        case secondsSince1970
        /// Milliseconds since 1970-01-01.
        case millisecondsSince1970
        /// ISO 8601 text in UTC, for example `2024-05-01T12:00:00Z`.
        case iso8601
        /// Text made by a closure.
        case custom(@Sendable (Date) throws -> String)
    }

    /// How `Data` values are written.
    public enum DataEncoding: Sendable {
        /// Whatever `Data.encode(to:)` writes: an array of byte values.
        case deferredToData
        /// Base64 text. The default.
        case base64
        /// Text made by a closure.
        case custom(@Sendable (Data) throws -> String)
    }

    /// How keys are rewritten before they are written.
    public enum KeyEncoding: Sendable {
        /// Keys as declared. The default.
        case useDefaultKeys
        /// `oneTwoURL` becomes `one_two_url`.
        case convertToSnakeCase
        /// `oneTwoURL` becomes `one-two-url`.
        case convertToKebabCase
        /// The first letter upper-cased.
        case capitalized
        /// All letters upper-cased.
        case uppercased
        /// All letters lower-cased.
        case lowercased
        /// Keys made by a closure.
        case custom(@Sendable (String) -> String)
    }

    /// How spaces are written.
    public enum SpaceEncoding: Sendable {
        /// `%20`. The default.
        case percentEscaped
        /// `+`, as HTML forms do.
        case plusReplaced
    }

    /// How array elements are keyed.
    public var arrayEncoding: URLEncoding.ArrayEncoding
    /// How booleans are written.
    public var boolEncoding: URLEncoding.BoolEncoding
    /// How dates are written.
    public var dateEncoding: DateEncoding
    /// How data is written.
    public var dataEncoding: DataEncoding
    /// How keys are rewritten.
    public var keyEncoding: KeyEncoding
    /// How spaces are written.
    public var spaceEncoding: SpaceEncoding

    /// Creates an encoder.
    public init(
        arrayEncoding: URLEncoding.ArrayEncoding = .brackets,
        boolEncoding: URLEncoding.BoolEncoding = .numeric,
        dateEncoding: DateEncoding = .deferredToDate,
        dataEncoding: DataEncoding = .base64,
        keyEncoding: KeyEncoding = .useDefaultKeys,
        spaceEncoding: SpaceEncoding = .percentEscaped
    ) {
        self.arrayEncoding = arrayEncoding
        self.boolEncoding = boolEncoding
        self.dateEncoding = dateEncoding
        self.dataEncoding = dataEncoding
        self.keyEncoding = keyEncoding
        self.spaceEncoding = spaceEncoding
    }

    /// The value as form text, for example `name=Ada&tags%5B%5D=math`.
    public func encode(_ value: some Encodable) throws(NALError) -> String {
        String(decoding: try encodedBytes(value), as: UTF8.self)
    }

    /// The value as form text in UTF-8, ready to be a body.
    public func encodeToData(_ value: some Encodable) throws(NALError) -> Data {
        Data(try encodedBytes(value))
    }

    /// The value as `Parameters`, for use with any `ParameterEncoding`.
    public func parameters(from value: some Encodable) throws(NALError) -> Parameters {
        try topLevelParameters(value)
    }

    func encodedBytes(_ value: any Encodable) throws(NALError) -> [UInt8] {
        let parameters = try topLevelParameters(value)
        var writer = QueryStringWriter(
            arrayEncoding: arrayEncoding,
            boolEncoding: boolEncoding,
            spaceAsPlus: spaceEncoding == .plusReplaced
        )
        do { try writer.write(parameters) } catch { throw error.nalError }
        return writer.output.makeArray()
    }

    private func topLevelParameters(_ value: any Encodable) throws(NALError) -> Parameters {
        let tree = FormTree(options: self)
        do {
            try FormValueEncoder(tree: tree, node: 0).store(value)
        } catch let fault as FormEncodingFault {
            let keyPath = tree.keyPath(of: fault.node)
            switch fault.kind {
            case .nonFiniteNumber:
                throw .encoding(.nonFiniteNumber(keyPath: keyPath))
            case .nestingTooDeep:
                throw .encoding(.nestingTooDeep(keyPath: keyPath, limit: ParameterValue.maximumNestingDepth))
            }
        } catch {
            throw .encoding(.encodableFailed(type: String(describing: type(of: value)), underlying: error))
        }
        if let tooDeep = tree.tooDeep {
            throw .encoding(
                .nestingTooDeep(keyPath: tree.keyPath(of: tooDeep), limit: ParameterValue.maximumNestingDepth))
        }
        switch tree.parameterValue(at: 0) {
        case .dictionary(let parameters): return parameters
        default: throw .encoding(.topLevelNotKeyed(type: String(describing: type(of: value))))
        }
    }
}

extension URLEncodedFormEncoder.SpaceEncoding: Equatable {}
