public import Foundation

/// A TLS connection, or the TLS configuration of a transport, failed one of its checks: which one is `check`.
///
/// A failure whose check cannot be told (a connection reset in the middle of a handshake) stays a
/// `NALError.transport` with `URLError.secureConnectionFailed`, which may be worth trying again; these are not.
public struct TLSFailure: Sendable, Equatable {
    /// The check that failed.
    public enum Check: Sendable, Equatable {
        /// The server's certificate chain leads to no trusted root: an unknown issuer, a self-signed certificate, an
        /// expired or not yet valid one. `detail` says which.
        case untrustedChain
        /// The server's certificate is trusted, but names another host.
        case hostnameMismatch
        /// The server's certificate is trusted, but its public key is none of `pinnedPublicKeys`.
        case pinMismatch
        /// The two sides have no protocol version in common: the server offers only versions older than
        /// `minimumVersion`, or refuses the client's.
        case protocolVersion
        /// The server asked for a client certificate, and none was configured (`clientIdentity`).
        case clientCertificateRequired
        /// The server refused the client certificate that was sent (an authority it does not trust, an expired
        /// certificate).
        case clientCertificateRejected
        /// A file of the configuration cannot be used: missing, unreadable, not a regular file, not PEM, or a key
        /// that the passphrase does not open. `detail` says which.
        case localFile(URL)
        /// A pin is not the base64 of a SHA-256 digest (44 characters ending in `=`).
        case invalidPin(String)
    }

    /// The check that failed.
    public let check: Check
    /// The URL of the request, or `nil` when the transport was being made.
    public let url: URL?
    /// What the TLS library or the file check said, with secrets redacted; never a passphrase or a key.
    public let detail: String

    /// Creates a failure.
    public init(check: Check, url: URL?, detail: String) {
        self.check = check
        self.url = url
        self.detail = detail
    }
}
