extension TLSFailure: CustomStringConvertible {
    /// A sentence that names the check, the host and what to try.
    public var description: String {
        let host = url.map { " for \(DisplayText.url($0))" } ?? ""
        let detail = detail.isEmpty ? "" : " (\(DisplayText.text(detail)))"
        switch check {
        case .untrustedChain:
            return "TLS\(host) failed: the server's certificate chain is not trusted\(detail). Trust its authority "
                + "with TLSConfiguration(trustRoots: .pemFile(…)); never turn checking off."
        case .hostnameMismatch:
            return "TLS\(host) failed: the server's certificate is for another host name\(detail)."
        case .pinMismatch:
            return "TLS\(host) failed: the server's public key matches none of the pinned keys\(detail). A pin is "
                + "the SHA-256 of the server's own certificate's key, not of an intermediate's or a root's."
        case .protocolVersion:
            return "TLS\(host) failed: the server and the client share no protocol version\(detail); check "
                + "TLSConfiguration.minimumVersion."
        case .clientCertificateRequired:
            return "TLS\(host) failed: the server asked for a client certificate and none is configured\(detail); "
                + "give TLSConfiguration a clientIdentity."
        case .clientCertificateRejected:
            return "TLS\(host) failed: the server refused the client certificate\(detail)."
        case .localFile(let file):
            return "TLS\(host) cannot use the file \(DisplayText.capped(file.path))\(detail)."
        case .invalidPin(let pin):
            return "The pinned public key '\(DisplayText.capped(pin))' is not the base64 of a SHA-256 digest "
                + "(44 characters, as `openssl dgst -sha256 -binary | base64` prints)."
        }
    }
}
