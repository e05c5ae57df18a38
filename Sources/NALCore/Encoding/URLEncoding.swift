#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// Encodes parameters as `application/x-www-form-urlencoded` text, into the URL query or the body.
///
/// For the same input and options the output is byte-identical to Alamofire 5's `URLEncoding`, so servers that
/// accept Moya's and Mockingbird's requests accept NAL's. Keys are sorted at every level; arrays encode as `key[]=v`
/// by default and nested dictionaries as `key[sub]=v`. Escaping follows RFC 3986: only letters, digits, `-._~`, `/`
/// and `?` stay as they are; a space becomes `%20`; non-ASCII text is percent-encoded UTF-8.
public struct URLEncoding: ParameterEncoding {
    /// Where the encoded parameters go.
    public enum Destination: Sendable {
        /// The query for `GET`, `HEAD` and `DELETE`; the body for every other method.
        case methodDependent
        /// The URL query, appended to any query already there.
        case queryString
        /// The body, with `Content-Type: application/x-www-form-urlencoded; charset=utf-8` unless one is set.
        case httpBody

        /// Whether parameters go into the URL for a request with `method`.
        public func encodesParametersInURL(for method: HTTPMethod) -> Bool {
            switch self {
            case .methodDependent: method == .get || method == .head || method == .delete
            case .queryString: true
            case .httpBody: false
            }
        }
    }

    /// How array elements are keyed.
    public enum ArrayEncoding: Sendable {
        /// `key[]=a&key[]=b`. The default.
        case brackets
        /// `key=a&key=b`.
        case noBrackets
        /// `key[0]=a&key[1]=b`.
        case indexInBrackets
        /// A key made by a closure from the unescaped parent key and the element index.
        case custom(@Sendable (_ key: String, _ index: Int) -> String)
    }

    /// How booleans are written.
    public enum BoolEncoding: Sendable {
        /// `1` and `0`. The default.
        case numeric
        /// `true` and `false`.
        case literal
    }

    /// The content type of form bodies.
    static let formContentType = "application/x-www-form-urlencoded; charset=utf-8"

    /// The query for `GET`, `HEAD` and `DELETE`, the body otherwise.
    public static var `default`: URLEncoding { URLEncoding() }
    /// Always the URL query.
    public static var queryString: URLEncoding { URLEncoding(destination: .queryString) }
    /// Always the body.
    public static var httpBody: URLEncoding { URLEncoding(destination: .httpBody) }

    // Stored in this order, the struct is 18 bytes and fits an existential's inline buffer (24 bytes), so an
    // endpoint's `encoding: URLEncoding.default` allocates no box on every call; `destination` first made it 25.
    /// How array elements are keyed.
    public let arrayEncoding: ArrayEncoding
    /// Where the encoded parameters go.
    public let destination: Destination
    /// How booleans are written.
    public let boolEncoding: BoolEncoding

    /// Creates an encoding.
    public init(
        destination: Destination = .methodDependent,
        arrayEncoding: ArrayEncoding = .brackets,
        boolEncoding: BoolEncoding = .numeric
    ) {
        self.destination = destination
        self.arrayEncoding = arrayEncoding
        self.boolEncoding = boolEncoding
    }

    /// Returns `request` with `parameters` in its query or body, depending on `destination` and the method.
    ///
    /// An existing query is kept and the parameters are appended after `&`. Empty parameters leave the URL alone.
    public func encode(_ request: URLRequest, with parameters: Parameters) throws -> URLRequest {
        var request = request
        let method = request.httpMethod.map(HTTPMethod.init(rawValue:)) ?? .get
        if destination.encodesParametersInURL(for: method) {
            guard let url = request.url else { throw NALError.invalidRequest(.missingURL) }
            var builder = URLBuilder(url: url)
            try builder.appendQuery(parameters, encoding: self)
            request.url = try builder.makeURL()
        } else {
            request.setContentTypeIfMissing(Self.formContentType)
            request.httpBody = Data(try queryBytes(parameters))
        }
        return request
    }

    /// The parameters as query text, without a leading `?`.
    public func queryString(_ parameters: Parameters) throws(NALError) -> String {
        String(decoding: try queryBytes(parameters), as: UTF8.self)
    }

    /// The list's pairs as query text, without a leading `?`: the same text as for the same pairs in `Parameters`.
    public func queryString(_ list: ParameterList) throws(NALError) -> String {
        String(decoding: try queryBytes(list), as: UTF8.self)
    }

    func queryBytes(_ parameters: Parameters) throws(NALError) -> [UInt8] {
        var writer = QueryStringWriter(arrayEncoding: arrayEncoding, boolEncoding: boolEncoding)
        do { try writer.write(parameters) } catch { throw error.nalError }
        return writer.output.makeArray()
    }

    func queryBytes(_ list: ParameterList) throws(NALError) -> [UInt8] {
        var writer = QueryStringWriter(arrayEncoding: arrayEncoding, boolEncoding: boolEncoding)
        do { try writer.write(list) } catch { throw error.nalError }
        return writer.output.makeArray()
    }
}
