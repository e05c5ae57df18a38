/// How an endpoint sends its access token: the scheme of the `Authorization` header.
public enum AccessTokenType: Sendable, Hashable {
    /// No token: the request passes through unchanged.
    case none
    /// `Authorization: Basic <token>`; the token is the base64 of `user:password`.
    case basic
    /// `Authorization: Bearer <token>`.
    case bearer
    /// `Authorization: <scheme> <token>`, or the bare token when the scheme is empty.
    case custom(String)

    /// The scheme word, or `nil` for `.none`.
    var scheme: String? {
        switch self {
        case .none: nil
        case .basic: "Basic"
        case .bearer: "Bearer"
        case .custom(let scheme): scheme
        }
    }
}

/// An endpoint that wants an access token from `AccessTokenMiddleware` (Mockingbird's and Moya's name).
///
/// ```swift
/// extension GitHub: AccessTokenAuthorizable {
///     var accessTokenType: AccessTokenType { self == .zen ? .none : .bearer }
/// }
/// ```
public protocol AccessTokenAuthorizable {
    /// Which token this endpoint needs.
    var accessTokenType: AccessTokenType { get }
}
