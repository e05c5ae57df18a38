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

    /// `GET`
    public static var get: HTTPMethod { HTTPMethod(rawValue: "GET") }
    /// `POST`
    public static var post: HTTPMethod { HTTPMethod(rawValue: "POST") }
    /// `PUT`
    public static var put: HTTPMethod { HTTPMethod(rawValue: "PUT") }
    /// `PATCH`
    public static var patch: HTTPMethod { HTTPMethod(rawValue: "PATCH") }
    /// `DELETE`
    public static var delete: HTTPMethod { HTTPMethod(rawValue: "DELETE") }
    /// `HEAD`
    public static var head: HTTPMethod { HTTPMethod(rawValue: "HEAD") }
    /// `OPTIONS`
    public static var options: HTTPMethod { HTTPMethod(rawValue: "OPTIONS") }
    /// `TRACE`
    public static var trace: HTTPMethod { HTTPMethod(rawValue: "TRACE") }
    /// `CONNECT`
    public static var connect: HTTPMethod { HTTPMethod(rawValue: "CONNECT") }

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
