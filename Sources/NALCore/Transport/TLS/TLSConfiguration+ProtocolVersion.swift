extension TLSConfiguration {
    /// A TLS protocol version.
    public enum ProtocolVersion: Sendable, Equatable, Comparable {
        /// TLS 1.2 (RFC 5246).
        case tls12
        /// TLS 1.3 (RFC 8446).
        case tls13
    }
}
