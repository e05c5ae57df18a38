/// Why `StubServer.listen(host:port:as:)` could not start listening.
public enum StubListenerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another socket listens on this address and port already.
    case addressInUse(host: String, port: Int)
    /// The address cannot be listened on, and why (a host that does not resolve, a port out of range, a
    /// permission the system refused).
    case cannotListen(host: String, port: Int, reason: String)
    /// The `as:` URL is not an origin: it needs an `http` or `https` scheme and a host, and no path, query or
    /// fragment.
    case invalidOrigin(String)

    /// A sentence naming what went wrong.
    public var description: String {
        switch self {
        case .addressInUse(let host, let port):
            "cannot listen on \(host):\(port): the port is in use (choose another, or port 0 for a free one)"
        case .cannotListen(let host, let port, let reason):
            "cannot listen on \(host):\(port): \(reason)"
        case .invalidOrigin(let origin):
            "\(origin) is not an origin to answer as: give a scheme (http or https) and a host, without a path or a "
                + "user name"
        }
    }
}
