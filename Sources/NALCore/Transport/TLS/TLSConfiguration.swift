/// How a transport's TLS connections are set up and checked: which certificate authorities are trusted, the client
/// certificate sent to servers that ask for one, the public keys the server's certificate must have, and the oldest
/// protocol version accepted. `CurlTransport(tls:)` applies it to every connection the transport makes.
///
/// ```swift
/// let tls = TLSConfiguration(
///     trustRoots: .pemFile(caBundle),
///     clientIdentity: .pemFiles(certificate: cert, privateKey: key, passphrase: nil),
///     pinnedPublicKeys: ["x2b5TgYxY9gHeKW1rUuJTKiGMD0k0FTgR7mHc3qwd+c="],
///     minimumVersion: .tls12)
/// let transport = try CurlTransport(tls: tls)
/// ```
///
/// Checking is never turned off: the server's chain must lead to a trusted root and its certificate must name the
/// host. Pins add a check; they replace none. See the "TLS and trust" article.
public struct TLSConfiguration: Sendable, Equatable {
    /// The certificate authorities whose certificates a server's chain must lead to.
    public var trustRoots: TrustRoots
    /// The certificate and key sent to a server that asks for one (mutual TLS), or `nil` to send none.
    public var clientIdentity: ClientIdentity?
    /// The base64 SHA-256 of each SubjectPublicKeyInfo the server's own certificate may have (HPKP's `pin-sha256`):
    /// when there are any, the server's key must be one of them, besides its chain being trusted. Empty: no pinning.
    public var pinnedPublicKeys: [String]
    /// The oldest TLS version a connection may use.
    public var minimumVersion: ProtocolVersion

    /// Creates a configuration; the defaults trust the system's certificate authorities, send no client
    /// certificate, pin nothing and accept TLS 1.2 and 1.3.
    public init(
        trustRoots: TrustRoots = .system,
        clientIdentity: ClientIdentity? = nil,
        pinnedPublicKeys: [String] = [],
        minimumVersion: ProtocolVersion = .tls12
    ) {
        self.trustRoots = trustRoots
        self.clientIdentity = clientIdentity
        self.pinnedPublicKeys = pinnedPublicKeys
        self.minimumVersion = minimumVersion
    }
}
