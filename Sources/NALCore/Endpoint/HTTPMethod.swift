/// An HTTP request method. The common methods are statics; any other token can be made with `init(rawValue:)`.
///
/// The nine standard methods are normalised to upper case, so `HTTPMethod(rawValue: "patch")` is `.patch` and is
/// sent as `PATCH`. Any other token is sent exactly as written: extension methods are case-sensitive (RFC 9110 §9.1).
public struct HTTPMethod: RawRepresentable, Hashable, Sendable {
    /// The method token as sent on the wire.
    public let rawValue: String

    /// Creates a method from its token, for example `PROPFIND`. A standard method in any letter case becomes its
    /// upper-case form. The token is validated when a request is prepared.
    public init(rawValue: String) {
        self.rawValue = Self.normalized(rawValue)
    }

    /// A token known to be in its normal form: the statics skip the check, which every request reads several times.
    private init(normalized rawValue: String) {
        self.rawValue = rawValue
    }

    /// `GET`
    public static var get: HTTPMethod { HTTPMethod(normalized: "GET") }
    /// `POST`
    public static var post: HTTPMethod { HTTPMethod(normalized: "POST") }
    /// `PUT`
    public static var put: HTTPMethod { HTTPMethod(normalized: "PUT") }
    /// `PATCH`
    public static var patch: HTTPMethod { HTTPMethod(normalized: "PATCH") }
    /// `DELETE`
    public static var delete: HTTPMethod { HTTPMethod(normalized: "DELETE") }
    /// `HEAD`
    public static var head: HTTPMethod { HTTPMethod(normalized: "HEAD") }
    /// `OPTIONS`
    public static var options: HTTPMethod { HTTPMethod(normalized: "OPTIONS") }
    /// `TRACE`
    public static var trace: HTTPMethod { HTTPMethod(normalized: "TRACE") }
    /// `CONNECT`
    public static var connect: HTTPMethod { HTTPMethod(normalized: "CONNECT") }

    /// Foundation upper-cases `get`, `post` and `delete` but sends `patch` as written; NAL treats the nine standard
    /// methods alike. Tokens without a lower-case ASCII letter, the usual case, return at once.
    private static func normalized(_ token: String) -> String {
        let utf8 = token.utf8
        guard utf8.count <= 7, utf8.contains(where: { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }) else {
            return token
        }
        let upper = token.uppercased()
        switch upper {
        case "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "CONNECT": return upper
        default: return token
        }
    }
}
