#if os(Linux)
    import Foundation
    import NALTestSupport
    import Testing

    @testable import NALCore

    /// `CurlTransport(tls:)` against the real TLS servers of `scripts/tls_server.py`, with certificates that
    /// script made with openssl: a private CA, another CA, a chain through an intermediate, an expired and a
    /// wrong-host certificate, a TLS 1.2-only server and servers that require a client certificate.
    @Suite(
        "TLSConfiguration over CurlTransport, against real TLS servers",
        .enabled(if: TLSServers.directory != nil, TLSServers.skipReason))
    struct TLSConfigurationTests {
        /// What `server` answers on `/hello` through a transport with `tls`.
        func answer(_ server: String, _ tls: TLSConfiguration) async throws -> TLSServers.Answer {
            let client = Client<TestEndpoint>(transport: try CurlTransport(tls: tls))
            return try await client.request(TestEndpoint(baseURL: try TLSServers.url(server), path: "hello"))
                .decode(TLSServers.Answer.self)
        }

        /// The `TLSFailure` of a call to `server` through a transport with `tls`; records an issue for anything else.
        func failure(_ server: String, _ tls: TLSConfiguration) async throws -> TLSFailure? {
            try await failure(try TLSServers.url(server), tls)
        }

        /// The `TLSFailure` of a call to `url` through a transport with `tls`; records an issue for anything else.
        func failure(_ url: URL, _ tls: TLSConfiguration) async throws -> TLSFailure? {
            let server = url.absoluteString
            do {
                let client = Client<TestEndpoint>(transport: try CurlTransport(tls: tls))
                let answer = try await client.request(TestEndpoint(baseURL: url, path: "hello")).data
                Issue.record("\(server) answered \(answer)")
            } catch NALError.tls(let failure) {
                #expect(failure.url?.host == "localhost")
                return failure
            } catch {
                Issue.record("\(server): expected NALError.tls, got \(error)")
            }
            return nil
        }

        func privateCA() throws -> TLSConfiguration {
            TLSConfiguration(trustRoots: .pemFile(try TLSServers.file("ca.pem")))
        }

        @Test("a server of the private CA answers once that CA is trusted, and not with the system's roots alone")
        func privateAuthority() async throws {
            let answer = try await answer("trusted", try privateCA())
            #expect(answer.path == "/hello")
            #expect(answer.tls == "TLSv1.3")
            let untrusted = try await failure("trusted", TLSConfiguration())
            #expect(untrusted?.check == .untrustedChain)
            // The older parameter is the same trust.
            let transport = try CurlTransport(certificateAuthorities: try TLSServers.file("ca.pem"))
            #expect(transport.tls == (try privateCA()))
            #expect(transport.certificateAuthorities == (try TLSServers.file("ca.pem")))
            let client = Client<TestEndpoint>(transport: transport)
            _ = try await client.request(TestEndpoint(baseURL: try TLSServers.url("chain"), path: "old"))
        }

        @Test("the article's configuration makes a transport from real files that a client-certificate server accepts")
        func articleExample() async throws {
            let caBundle = try TLSServers.file("ca.pem")
            let cert = try TLSServers.file("client.pem")
            let key = try TLSServers.file("client-key.pem")
            // Docs: begin tls-configuration
            let tls = TLSConfiguration(
                trustRoots: .pemFile(caBundle),  // default .system
                clientIdentity: .pemFiles(certificate: cert, privateKey: key, passphrase: nil),
                pinnedPublicKeys: ["x2b5TgYxY9gHeKW1rUuJTKiGMD0k0FTgR7mHc3qwd+c="],
                minimumVersion: .tls12)  // or .tls13
            let transport = try CurlTransport(tls: tls)
            // Docs: end tls-configuration
            #expect(transport.tls == tls)
            var pinned = tls
            pinned.pinnedPublicKeys.append(try TLSServers.pin("trusted"))
            #expect(try await answer("client-auth", pinned).client == "nal-client")
        }

        @Test(
            "each untrusted certificate fails as the check it failed, and says why",
            arguments: [
                ("other-ca", TLSFailure.Check.untrustedChain, "unable to get local issuer certificate"),
                ("self-signed", .untrustedChain, "self-signed certificate"),
                ("expired", .untrustedChain, "certificate has expired"),
                ("wrong-host", .hostnameMismatch, "target host name 'localhost'"),
            ])
        func untrusted(server: String, check: TLSFailure.Check, said: String) async throws {
            let failure = try await failure(server, try privateCA())
            #expect(failure?.check == check)
            #expect(failure?.detail.contains(said) == true, "\(String(describing: failure?.detail))")
            let description = NALError.tls(try #require(failure)).description
            #expect(description.contains(check == .hostnameMismatch ? "for another host name" : "chain is not trusted"))
        }

        @Test("a pin of the server's own key passes; one of another key, of the intermediate or of the root fails")
        func pinning() async throws {
            var tls = try privateCA()
            tls.pinnedPublicKeys = [try TLSServers.pin("other"), try TLSServers.pin("trusted")]
            #expect(try await answer("trusted", tls).path == "/hello")
            // libcurl's own form is accepted too.
            tls.pinnedPublicKeys = ["sha256//" + (try TLSServers.pin("chain-leaf"))]
            #expect(try await answer("chain", tls).path == "/hello")
            for pin in ["other", "intermediate", "ca"] {
                tls.pinnedPublicKeys = [try TLSServers.pin(pin)]
                let failure = try await failure("chain", tls)
                #expect(failure?.check == .pinMismatch, "pinned \(pin)")
                #expect(NALError.tls(try #require(failure)).description.contains("matches none of the pinned keys"))
            }
        }

        @Test("a pinned key does not stand in for trust: the chain must be trusted too")
        func pinAndTrust() async throws {
            var tls = try privateCA()
            tls.pinnedPublicKeys = [try TLSServers.pin("other")]
            #expect(try await failure("other-ca", tls)?.check == .untrustedChain)
            tls.pinnedPublicKeys = [try TLSServers.pin("self-signed")]
            #expect(try await failure("self-signed", tls)?.check == .untrustedChain)
        }

        @Test("a minimum of TLS 1.3 refuses a TLS 1.2-only server; TLS 1.2, the default, speaks to it")
        func minimumVersion() async throws {
            var tls = try privateCA()
            #expect(tls.minimumVersion == .tls12)
            #expect(try await answer("tls12-only", tls).tls == "TLSv1.2")
            tls.minimumVersion = .tls13
            let failure = try await failure("tls12-only", tls)
            #expect(failure?.check == .protocolVersion)
            #expect(try await answer("trusted", tls).tls == "TLSv1.3")
        }

        @Test(
            "a server that requires a client certificate gets it; without one the error says it asked",
            arguments: ["client-auth", "client-auth-tls12"])
        func clientCertificate(server: String) async throws {
            let failure = try await failure(server, try privateCA())
            #expect(failure?.check == .clientCertificateRequired, "\(String(describing: failure))")
            var tls = try privateCA()
            tls.clientIdentity = .pemFiles(
                certificate: try TLSServers.file("client.pem"), privateKey: try TLSServers.file("client-key.pem"),
                passphrase: nil)
            #expect(try await answer(server, tls).client == "nal-client")
            tls.clientIdentity = .pemFiles(
                certificate: try TLSServers.file("client.pem"),
                privateKey: try TLSServers.file("client-key-encrypted.pem"), passphrase: try TLSServers.passphrase)
            #expect(try await answer(server, tls).client == "nal-client")
        }

        @Test(
            "a server that asks for a client certificate without requiring one answers; one that hangs up untold is no TLS failure"
        )
        func notRequired() async throws {
            var tls = try privateCA()
            #expect(try await answer("optional-client-auth", tls).client == nil)
            tls.clientIdentity = .pemFiles(
                certificate: try TLSServers.file("client.pem"), privateKey: try TLSServers.file("client-key.pem"),
                passphrase: nil)
            #expect(try await answer("optional-client-auth", tls).client == "nal-client")
            // A server that asked for no certificate and closes after the handshake: a connection lost, which may be
            // worth trying again, not a TLS check.
            let client = Client<TestEndpoint>(transport: try CurlTransport(tls: try privateCA()))
            do {
                _ = try await client.request(TestEndpoint(baseURL: try TLSServers.url("hangup"), path: "x"))
                Issue.record("the server that hangs up answered")
            } catch {
                guard case .transport = error as? NALError else {
                    Issue.record("expected a transport error, got \(error)")
                    return
                }
            }
        }

        @Test("a client certificate of an authority the server does not trust is refused as such")
        func rejectedCertificate() async throws {
            var tls = try privateCA()
            tls.clientIdentity = .pemFiles(
                certificate: try TLSServers.file("stranger.pem"), privateKey: try TLSServers.file("stranger-key.pem"),
                passphrase: nil)
            #expect(try await failure("client-auth-tls12", tls)?.check == .clientCertificateRejected)
        }

        @Test("a TLS failure shows the URL it failed for without its password or token")
        func redactedURL() async throws {
            var components = try #require(
                URLComponents(url: try TLSServers.url("other-ca"), resolvingAgainstBaseURL: false))
            let password = "hunter2-\(UUID().uuidString)"
            let token = "tok-\(UUID().uuidString)"
            components.user = "alice"
            components.password = password
            components.queryItems = [URLQueryItem(name: "access_token", value: token)]
            let url = try #require(components.url)
            let failure = try await failure(url, try privateCA())
            #expect(failure?.check == .untrustedChain)
            let shown = "\(String(describing: failure?.url)) \(failure.map { NALError.tls($0).description } ?? "")"
            #expect(!shown.contains(password), "\(shown)")
            #expect(!shown.contains(token), "\(shown)")
        }

        @Test("the files are read once, when the transport is made: one replaced by a FIFO later stops nothing")
        func filesReadOnce() async throws {
            let folder = try TransferFiles.scratchDirectory()
            defer { try? FileManager.default.removeItem(at: folder) }
            let authorities = folder.appendingPathComponent("ca.pem")
            let key = folder.appendingPathComponent("key.pem")
            try FileManager.default.copyItem(at: try TLSServers.file("ca.pem"), to: authorities)
            try FileManager.default.copyItem(at: try TLSServers.file("client-key.pem"), to: key)
            let tls = TLSConfiguration(
                trustRoots: .pemFile(authorities),
                clientIdentity: .pemFiles(
                    certificate: try TLSServers.file("client.pem"), privateKey: key, passphrase: nil))
            let client = Client<TestEndpoint>(transport: try CurlTransport(tls: tls))
            for file in [authorities, key] {
                try FileManager.default.removeItem(at: file)
                #expect(mkfifo(file.path, 0o600) == 0)
            }
            let answer = try await client.request(TestEndpoint(baseURL: try TLSServers.url("client-auth"), path: "x"))
                .decode(TLSServers.Answer.self)
            #expect(answer.client == "nal-client")
        }

        @Test("a passphrase OpenSSL would cut short (a NUL, over 1,023 bytes) is refused when the transport is made")
        func passphraseOpenSSLCuts() throws {
            for passphrase in [try TLSServers.passphrase + "\0tail", String(repeating: "p", count: 1024)] {
                let tls = TLSConfiguration(
                    clientIdentity: .pemFiles(
                        certificate: try TLSServers.file("client.pem"),
                        privateKey: try TLSServers.file("client-key-encrypted.pem"), passphrase: passphrase))
                #expect {
                    try CurlTransport(tls: tls)
                } throws: { error in
                    guard case .tls(let failure) = error as? NALError else { return false }
                    return failure.check == .localFile(try TLSServers.file("client-key-encrypted.pem"))
                        && !"\(error)".contains(passphrase)
                }
            }
        }

        @Test("a wrong passphrase fails as the key file, and no message holds the passphrase")
        func wrongPassphrase() async throws {
            var tls = try privateCA()
            let key = try TLSServers.file("client-key-encrypted.pem")
            let secret = "wrong-passphrase-\(UUID().uuidString)"
            tls.clientIdentity = .pemFiles(
                certificate: try TLSServers.file("client.pem"), privateKey: key, passphrase: secret)
            let failure = try await failure("client-auth", tls)
            #expect(failure?.check == .localFile(key))
            let described = NALError.tls(try #require(failure)).description
            #expect(described.contains(key.path))
            let transport = try CurlTransport(tls: tls)
            for text in [
                described, "\(tls)", String(reflecting: tls), dumped(tls), "\(String(describing: failure))",
                dumped(transport), String(reflecting: transport),
            ] {
                #expect(!text.contains(secret), "\(text)")
            }
        }

        func dumped(_ value: some Any) -> String {
            var text = ""
            dump(value, to: &text)
            return text
        }
    }

    /// The files and pins of a `TLSConfiguration` are checked when the transport is made.
    @Suite("TLSConfiguration's files and pins, checked when the transport is made")
    struct TLSConfigurationCheckTests {
        let folder: URL = {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nal-tls-\(UUID().uuidString)")
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            return folder
        }()

        /// The `TLSFailure` of making a transport with `tls`.
        func failure(_ tls: TLSConfiguration) -> TLSFailure? {
            do {
                _ = try CurlTransport(tls: tls)
                Issue.record("the transport was made")
            } catch {
                guard case .tls(let failure) = error else {
                    Issue.record("expected NALError.tls, got \(error)")
                    return nil
                }
                #expect(failure.url == nil)
                return failure
            }
            return nil
        }

        func write(_ name: String, _ text: String) throws -> URL {
            let file = folder.appendingPathComponent(name)
            try Data(text.utf8).write(to: file)
            return file
        }

        static let certificateText = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

        @Test("a missing file, a directory, a FIFO and a file that is not PEM are refused, naming the file")
        func badFiles() throws {
            let missing = folder.appendingPathComponent("missing.pem")
            let fifo = folder.appendingPathComponent("fifo.pem")
            #expect(mkfifo(fifo.path, 0o600) == 0)
            let text = try write("text.pem", "not a certificate\n")
            for (file, problem) in [
                (missing, "does not exist"), (folder, "directory"), (fifo, "FIFO"), (text, "not PEM"),
            ] {
                let failure = failure(TLSConfiguration(trustRoots: .pemFile(file)))
                #expect(failure?.check == .localFile(file))
                #expect(failure?.detail.contains(problem) == true, "\(String(describing: failure?.detail))")
                let described = failure.map { NALError.tls($0).description } ?? ""
                #expect(described.contains(file.path), "\(described)")
            }
            // The client's files too: a certificate that is a key, a key that is a certificate.
            let certificate = try write("client.pem", Self.certificateText)
            let key = try write("key.pem", "-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n")
            let swapped = TLSConfiguration(
                clientIdentity: .pemFiles(certificate: key, privateKey: certificate, passphrase: nil))
            #expect(failure(swapped)?.check == .localFile(key))
            let keyIsCertificate = TLSConfiguration(
                clientIdentity: .pemFiles(certificate: certificate, privateKey: certificate, passphrase: nil))
            #expect(failure(keyIsCertificate)?.check == .localFile(certificate))
            let good = TLSConfiguration(
                clientIdentity: .pemFiles(certificate: certificate, privateKey: key, passphrase: nil))
            #expect(throws: Never.self) { try CurlTransport(tls: good) }
        }

        @Test("an encrypted key without a passphrase is refused when the transport is made, not asked for")
        func encryptedKeyWithoutPassphrase() throws {
            let certificate = try write("client.pem", Self.certificateText)
            for text in [
                "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIB\n-----END ENCRYPTED PRIVATE KEY-----\n",
                "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\nMIIB\n"
                    + "-----END RSA PRIVATE KEY-----\n",
            ] {
                let key = try write("encrypted.pem", text)
                let failure = failure(
                    TLSConfiguration(
                        clientIdentity: .pemFiles(certificate: certificate, privateKey: key, passphrase: nil)))
                #expect(failure?.check == .localFile(key))
                #expect(failure?.detail.contains("no passphrase") == true)
            }
        }

        @Test(
            "a pin that is not the base64 of 32 bytes is refused",
            arguments: [
                "", "abc", "x2b5TgYxY9gHeKW1rUuJTKiGMD0k0FTgR7mHc3qwd+c",
                "sha1//x2b5TgYxY9gHeKW1rUuJTKiGMD0k0FTgR7mHc3qwd+c=",
                "x2b5TgYxY9gHeKW1rUuJTKiGMD0k0FTgR7mHc3qwd+c=;x2b5TgYxY9gHeKW1rUuJTKiGMD0k0FTgR7mHc3qwd+c=",
                "x2b5TgYxY9gHeKW1rUuJTKiGMD0k0FTgR7mHc3qwd+d=",
                "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
            ])
        func invalidPin(pin: String) {
            #expect(failure(TLSConfiguration(pinnedPublicKeys: [pin]))?.check == .invalidPin(pin))
        }

        @Test("a pin in either form is taken; both ways of naming the trusted authorities at once are refused")
        func validPinsAndConflict() throws {
            let pins = [
                "x2b5TgYxY9gHeKW1rUuJTKiGMD0k0FTgR7mHc3qwd+c=", "sha256//47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
            ]
            #expect(throws: Never.self) { try CurlTransport(tls: TLSConfiguration(pinnedPublicKeys: pins)) }
            let authorities = try write("ca.pem", Self.certificateText)
            let other = try write("other.pem", Self.certificateText)
            // The same file both ways is one setting; two files are refused, naming the conflict.
            #expect(throws: Never.self) {
                try CurlTransport(
                    certificateAuthorities: authorities, tls: TLSConfiguration(trustRoots: .pemFile(authorities)))
            }
            #expect {
                try CurlTransport(
                    certificateAuthorities: authorities, tls: TLSConfiguration(trustRoots: .pemFile(other)))
            } throws: { error in
                guard case .tls(let failure) = error as? NALError else { return false }
                return failure.check == .localFile(authorities) && "\(error)".contains("certificateAuthorities")
            }
        }

        @Test(
            "libcurl's messages name the check, libcurl 8's and addresses' included; a bare reset names none",
            arguments: [
                (
                    60, "SSL: no alternative certificate subject name matches target host name 'x'", false,
                    TLSFailure.Check?.some(.hostnameMismatch)
                ),
                (
                    60, "SSL: no alternative certificate subject name matches target hostname 'x'", false,
                    .hostnameMismatch
                ),
                (
                    60, "SSL: no alternative certificate subject name matches target ipv4 address '127.0.0.1'", false,
                    .hostnameMismatch
                ),
                (60, "SSL: certificate subject name 'a' does not match target host name 'b'", false, .hostnameMismatch),
                (60, "SSL certificate problem: unable to get local issuer certificate", false, .untrustedChain),
                (60, "SSL certificate problem: certificate has expired", false, .untrustedChain),
                (90, "SSL: public key does not match pinned public key", false, .pinMismatch),
                (
                    35, "OpenSSL/3.0.19: error:0A00042E:SSL routines::tlsv1 alert protocol version", false,
                    .protocolVersion
                ),
                (
                    56, "OpenSSL SSL_read: error:0A00045C:SSL routines::tlsv13 alert certificate required", false,
                    .clientCertificateRequired
                ),
                (
                    55, "getpeername() failed with errno 107: Transport endpoint is not connected", true,
                    .clientCertificateRequired
                ),
                (55, "getpeername() failed with errno 107: Transport endpoint is not connected", false, nil),
                (56, "Recv failure: Connection reset by peer", false, nil),
                (7, "Failed to connect: unsupported protocol", false, nil),
            ])
        func classification(code: Int32, detail: String, asked: Bool, expected: TLSFailure.Check?) {
            let checked = TLSConfiguration.Checked(minimumVersion: .tls12)
            #expect(CurlCode.tlsCheck(code, detail: detail, tls: checked, certificateRequested: asked) == expected)
        }

        @Test("a configuration's descriptions show its files and never the passphrase")
        func descriptions() throws {
            let secret = "s3cret-\(UUID().uuidString)"
            let identity = TLSConfiguration.ClientIdentity.pemFiles(
                certificate: URL(fileURLWithPath: "/keys/client.pem"),
                privateKey: URL(fileURLWithPath: "/keys/key.pem"),
                passphrase: secret)
            let tls = TLSConfiguration(clientIdentity: identity)
            var dumped = ""
            dump(tls, to: &dumped)
            for text in ["\(tls)", String(reflecting: tls), "\(identity)", dumped] {
                #expect(!text.contains(secret), "\(text)")
                #expect(text.contains("/keys/key.pem"), "\(text)")
            }
            // Equal when every part is; the passphrase is a part.
            #expect(tls == TLSConfiguration(clientIdentity: identity))
            #expect(
                tls
                    != TLSConfiguration(
                        clientIdentity: .pemFiles(
                            certificate: identity.certificate, privateKey: identity.privateKey, passphrase: "other")))
        }
    }
#endif
