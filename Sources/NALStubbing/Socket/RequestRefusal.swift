/// Why the stub listener refuses what a client sent, with the status it answers before it closes the connection.
package struct RequestRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// The status sent back: 400, 408, 413, 414, 417, 431, 501 or 505.
    package let status: Int
    /// What was wrong, as a sentence fragment ("the request line is not `METHOD target HTTP/1.1`").
    package let reason: String

    package init(_ status: Int, _ reason: String) {
        self.status = status
        self.reason = reason
    }

    package var description: String { "\(status): \(reason)" }

    static func badRequest(_ reason: String) -> RequestRefusal { RequestRefusal(400, reason) }
}
