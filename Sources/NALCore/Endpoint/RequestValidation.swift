/// Which response status codes count as success for an endpoint.
public enum RequestValidation: Sendable, Hashable {
    /// Accept every status code.
    case none
    /// Accept 200..<300. The default.
    case successCodes
    /// Accept 200..<400.
    case successAndRedirectCodes
    /// Accept exactly these codes.
    case customCodes([Int])

    /// Whether a response with `statusCode` passes this validation.
    public func accepts(statusCode: Int) -> Bool {
        switch self {
        case .none: true
        case .successCodes: (200..<300).contains(statusCode)
        case .successAndRedirectCodes: (200..<400).contains(statusCode)
        case .customCodes(let codes): codes.contains(statusCode)
        }
    }
}
