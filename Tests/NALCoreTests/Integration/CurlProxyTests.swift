#if os(Linux)
    import Foundation
    import NALCore
    import NALTestSupport
    import Testing

    /// CurlTransport through the forward proxies of `scripts/tls_server.py`, as the environment names them: a
    /// CONNECT tunnel to a TLS server, `no_proxy`, and proxy credentials. Each call runs in a child process, since
    /// the environment is the process's.
    @Suite(
        "CurlTransport through a proxy: CONNECT tunnels, no_proxy, credentials",
        .enabled(if: TLSServers.directory != nil, TLSServers.skipReason),
        // One at a time: the tests count what the proxies' journals gained.
        .serialized)
    struct CurlProxyTests {
        /// What the child process's call must end with.
        enum Expected: Codable, Sendable {
            /// An answer for `path`, in which the server saw no `Proxy-Authorization`.
            case answer(path: String)
            /// A failure that names the proxy's 407 and holds nowhere the `password`.
            case refusal(password: String)
            /// `NALError.tls` with `.untrustedChain`: the server's certificate was checked through the tunnel.
            case untrusted
        }

        /// In a child process: sets `https_proxy` to `proxy` (and `no_proxy` when given), calls the TLS server
        /// `server` at `path`, and exits 0 when the call ended as `expected`.
        func inChild(
            proxy: String, noProxy: String = "", server: String = "trusted", path: String, expected: Expected
        ) async {
            await inChildProcess {
                await #expect(processExitsWith: .success) { [proxy, noProxy, server, path, expected] in
                    for name in ["http_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"] {
                        unsetenv(name)
                    }
                    setenv("https_proxy", proxy, 1)
                    if !noProxy.isEmpty { setenv("no_proxy", noProxy, 1) }
                    guard let authority = try? TLSServers.file("ca.pem"), let base = try? TLSServers.url(server),
                        let transport = try? CurlTransport(tls: TLSConfiguration(trustRoots: .pemFile(authority)))
                    else { exit(3) }
                    let client = Client<TestEndpoint>(transport: transport)
                    do throws(NALError) {
                        let answer = try await client.request(TestEndpoint(baseURL: base, path: path))
                            .decode(TLSServers.Answer.self)
                        guard case .answer(let expectedPath) = expected else { exit(4) }
                        exit(
                            answer.path == "/" + expectedPath && !answer.headers.contains("proxy-authorization") ? 0 : 1
                        )
                    } catch {
                        if case .untrusted = expected {
                            guard case .tls(let failure) = error else { exit(7) }
                            exit(failure.check == .untrustedChain ? 0 : 8)
                        }
                        guard case .refusal(let password) = expected else { exit(5) }
                        let shown = [String(describing: error), String(reflecting: error)]
                        exit(!shown.contains { $0.contains(password) } && error.description.contains("407") ? 0 : 6)
                    }
                }
            }
        }

        func proxyURL(_ name: String, credentials: String? = nil) throws -> String {
            let port = try #require(try TLSServers.url(name).port)
            return "http://\(credentials.map { "\($0)@" } ?? "")127.0.0.1:\(port)"
        }

        func target() throws -> String { "localhost:\(try #require(try TLSServers.url("trusted").port))" }

        @Test("https_proxy tunnels with CONNECT to the TLS server, whose certificate is still checked")
        func tunnel() async throws {
            let before = try await TLSServers.journal("proxy").count
            await inChild(proxy: try proxyURL("proxy"), path: "tunnelled", expected: .answer(path: "tunnelled"))
            let asked = try await TLSServers.journal("proxy").dropFirst(before)
            #expect(asked.map(\.method) == ["CONNECT"])
            #expect(asked.first?.target == (try target()))
            // Through the same tunnel, a server of another authority is refused.
            await inChild(proxy: try proxyURL("proxy"), server: "other-ca", path: "untrusted", expected: .untrusted)
        }

        @Test("no_proxy sends the call straight to the server")
        func noProxy() async throws {
            let before = try await TLSServers.journal("proxy").count
            await inChild(
                proxy: try proxyURL("proxy"), noProxy: "localhost", path: "direct", expected: .answer(path: "direct"))
            #expect(try await TLSServers.journal("proxy").count == before, "the call went through the proxy")
        }

        @Test("proxy credentials go to the proxy alone: on CONNECT, never to the server inside the tunnel")
        func credentials() async throws {
            let before = try await TLSServers.journal("proxy-auth").count
            let proxy = try proxyURL("proxy-auth", credentials: try TLSServers.proxyCredentials)
            await inChild(proxy: proxy, path: "authorized", expected: .answer(path: "authorized"))
            let asked = try await TLSServers.journal("proxy-auth").dropFirst(before)
            #expect(asked.map(\.authorized) == [true])
        }

        @Test("wrong proxy credentials fail the call, and no message holds the password")
        func wrongCredentials() async throws {
            let password = "wrong-\(UUID().uuidString)"
            let proxy = try proxyURL("proxy-auth", credentials: "nal:\(password)")
            await inChild(proxy: proxy, path: "refused", expected: .refusal(password: password))
        }
    }
#endif
