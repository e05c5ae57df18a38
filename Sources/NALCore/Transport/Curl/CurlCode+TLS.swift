#if os(Linux)
    import Foundation

    extension CurlCode {
        /// The error for libcurl's `code`: `NALError.tls` when the code and libcurl's `detail` tell which TLS check
        /// failed, else `NALError.transport` with the `URLError` URLSession reports for the same failure.
        static func failure(
            _ code: Int32, url: URL?, detail: String, tls: TLSConfiguration.Checked, certificateRequested: Bool = false
        ) -> NALError {
            guard let check = tlsCheck(code, detail: detail, tls: tls, certificateRequested: certificateRequested)
            else {
                return .transport(urlError(code, url: url, detail: detail))
            }
            let said = SensitiveData.current.redacting(message: detail)
            return .tls(TLSFailure(check: check, url: url, detail: said.isEmpty ? message(code) : said))
        }

        /// Which check `code` stands for; `nil` for a failure that says none (a connection reset mid-handshake).
        /// `certificateRequested`: the server asked for a client certificate, and none was configured.
        static func tlsCheck(
            _ code: Int32, detail: String, tls: TLSConfiguration.Checked, certificateRequested: Bool
        ) -> TLSFailure.Check? {
            let said = detail.lowercased()
            switch code {
            case peerFailedVerification:
                // "SSL: no alternative certificate subject name matches target host name 'x'", "SSL: certificate
                // subject name 'y' does not match target host name 'x'"; libcurl 8 writes "hostname", or "ipv4
                // address" for an address. The chain's own messages name no subject.
                return said.contains("subject name") || said.contains("match target")
                    ? .hostnameMismatch : .untrustedChain
            case pinnedKeyMismatch:
                return .pinMismatch
            case badCertificateAuthorityFile:
                return tls.certificateAuthorities.map { .localFile(URL(fileURLWithPath: $0)) }
            case localCertificateProblem:
                // libcurl names the file it could not use: the key ("unable to set private key file") or the
                // certificate.
                guard let certificate = tls.certificate, let key = tls.privateKey else { return nil }
                return .localFile(URL(fileURLWithPath: said.contains("private key") ? key : certificate))
            default:
                break
            }
            // The rest are told by the alert the server sent, or by OpenSSL's reason, in the handshake (or, for an
            // alert, just after it).
            let inHandshake = code == sslConnectError || (code == receiveError && said.contains("alert"))
            if inHandshake,
                said.contains("alert protocol version") || said.contains("unsupported protocol")
                    || said.contains("no protocols available")
            {
                return .protocolVersion
            }
            if said.contains("alert certificate required")
                || (certificateRequested && connectionFailures.contains(code))
            {
                return .clientCertificateRequired
            }
            if tls.certificate != nil,
                [
                    "alert unknown ca", "alert bad certificate", "alert certificate unknown",
                    "alert certificate expired",
                    "alert certificate revoked", "alert unsupported certificate", "alert access denied",
                ]
                .contains(where: said.contains)
            {
                return .clientCertificateRejected
            }
            return nil
        }

        /// How a server's refusal after it asked for a certificate shows: `CURLE_SSL_CONNECT_ERROR` (an alert in the
        /// handshake), `CURLE_SEND_ERROR` and `CURLE_RECV_ERROR` (TLS 1.3: a reset or an alert after it). Not
        /// `CURLE_GOT_NOTHING`: a server that read the request and closed had taken the connection without one.
        static let connectionFailures: Set<Int32> = [35, 55, 56]
        /// `CURLE_SSL_CONNECT_ERROR`, `CURLE_RECV_ERROR`.
        static let sslConnectError: Int32 = 35
        static let receiveError: Int32 = 56
        /// `CURLE_PEER_FAILED_VERIFICATION`: the chain or the name.
        static let peerFailedVerification: Int32 = 60
        /// `CURLE_SSL_PINNEDPUBKEYNOTMATCH`.
        static let pinnedKeyMismatch: Int32 = 90
        /// `CURLE_SSL_CACERT_BADFILE`: libcurl blames the server for it otherwise.
        static let badCertificateAuthorityFile: Int32 = 77
        /// `CURLE_SSL_CERTPROBLEM`: the client certificate or its key (a wrong passphrase).
        static let localCertificateProblem: Int32 = 58
    }
#endif
