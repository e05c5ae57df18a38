/// What a `StubServer`'s checks throw.
public enum StubServerError: Error, Sendable, CustomStringConvertible {
    /// These stubs never answered a request.
    case unusedStubs([String])
    /// No request matching `matcher` arrived within `timeout`.
    case noRequest(matcher: String, timeout: Duration)

    /// A sentence naming what went wrong.
    public var description: String {
        switch self {
        case .unusedStubs(let stubs):
            "\(stubs.count) stub\(stubs.count == 1 ? " was" : "s were") never used: " + stubs.joined(separator: "; ")
        case .noRequest(let matcher, let timeout):
            "no request matching \(matcher) arrived within \(timeout)"
        }
    }
}
