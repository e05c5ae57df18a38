/// An HTTP request method. The common methods are statics; any other token can be made with `init(rawValue:)`.
///
/// Methods are case-sensitive (RFC 9110 §9.1), so `HTTPMethod(rawValue: "get")` is not `.get`.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable {
    /// The method token as sent on the wire.
    public let rawValue: String

    /// Creates a method from its token, for example `PROPFIND`. The token is validated when a request is prepared.
    public init(rawValue: String) {
        self.rawValue = rawValue
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
}
