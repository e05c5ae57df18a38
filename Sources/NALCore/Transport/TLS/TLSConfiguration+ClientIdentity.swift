public import Foundation

extension TLSConfiguration {
    /// The certificate a client shows a server that asks for one (mutual TLS), with its private key.
    ///
    /// Its descriptions never show the passphrase: `print`, `dump`, string interpolation and NAL's logs and errors
    /// name the files alone.
    public enum ClientIdentity: Sendable, Equatable {
        /// A PEM certificate file (the client's certificate, then any intermediates the server needs) and a PEM
        /// private key file, which may be encrypted: `passphrase` opens it.
        case pemFiles(certificate: URL, privateKey: URL, passphrase: String?)

        /// The certificate file.
        public var certificate: URL {
            switch self {
            case .pemFiles(let certificate, _, _): certificate
            }
        }

        /// The private key file.
        public var privateKey: URL {
            switch self {
            case .pemFiles(_, let privateKey, _): privateKey
            }
        }

        /// The key's passphrase, for the transport alone.
        var passphrase: String? {
            switch self {
            case .pemFiles(_, _, let passphrase): passphrase
            }
        }
    }
}

extension TLSConfiguration.ClientIdentity: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The files, and whether a passphrase was given; never the passphrase.
    public var description: String {
        "pemFiles(certificate: \(certificate.path), privateKey: \(privateKey.path), passphrase: "
            + "\(passphrase == nil ? "nil" : "<redacted>"))"
    }

    /// The same as `description`.
    public var debugDescription: String { description }

    /// What `dump` and the debugger show: the files, and the passphrase redacted.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "certificate": certificate, "privateKey": privateKey,
                "passphrase": passphrase == nil ? "nil" : "<redacted>",
            ])
    }
}
