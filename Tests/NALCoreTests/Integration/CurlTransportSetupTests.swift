#if os(Linux)
    import Foundation
    import FoundationNetworking
    import NALCore
    import Testing

    @Suite("CurlTransport: loading, settings, cookies and proxies")
    struct CurlTransportSetupTests {
        @Test("when libcurl cannot be loaded, creating the transport throws transportUnavailable naming the file")
        func libraryMissing() async {
            // In a child process: libcurl is loaded once per process.
            await inChildProcess {
                await #expect(processExitsWith: .success) {
                    setenv("NAL_LIBCURL", "/nonexistent/libcurl-nal.so.4", 1)
                    do throws(NALError) {
                        _ = try CurlTransport()
                        exit(1)
                    } catch {
                        guard case .transportUnavailable(let reason) = error,
                            reason.contains("/nonexistent/libcurl-nal.so.4"),
                            error.description.contains("cannot work on this machine")
                        else { exit(2) }
                        exit(0)
                    }
                }
            }
        }

        @Test(
            "an idle timeout that is not a positive number of seconds is refused", arguments: [0, -1, .nan, .infinity])
        func invalidIdleTimeout(seconds: Double) {
            #expect(throws: NALError.self) { try CurlTransport(idleTimeout: seconds) }
        }

        @Test("the README's one line gives a client CurlTransport")
        func readmeLine() throws {
            // Docs: begin curl-transport
            let client = Client<GitHub>(transport: try CurlTransport())
            // Docs: end curl-transport
            #expect(client.transport is CurlTransport)
        }

        @Test("a connection limit under one means one, not libcurl's 'no limit'")
        func connectionLimitFloor() throws {
            #expect(try CurlTransport(maximumConnectionsPerHost: 0).maximumConnectionsPerHost == 1)
            #expect(try CurlTransport(maximumConnectionsPerHost: -5).maximumConnectionsPerHost == 1)
        }

        @Test(
            "a call's handle leaves libcurl before the call returns, succeeded, failed, timed out or cancelled",
            .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
        func handlesLeaveWithTheirCalls() async throws {
            let transport = try CurlTransport()
            let client = Client<TestEndpoint>(transport: transport)
            for _ in 0..<3 {
                #expect(try await client.request(FaultServer.endpoint("fast")).string() == "fast")
                #expect(transport.transfersInLibcurl == 0)
            }
            await #expect(throws: NALError.self) { try await client.request(FaultServer.endpoint("status/500")) }
            #expect(transport.transfersInLibcurl == 0)
            await #expect(throws: NALError.self) {
                try await client.request(FaultServer.endpoint("delay", query: ["ms": 3000], timeout: 0.2))
            }
            #expect(transport.transfersInLibcurl == 0, "a call ended by its idle timeout is still in libcurl")

            let slow = Task { try await client.request(FaultServer.endpoint("delay", query: ["ms": 20_000])) }
            // Cancelled once it is in libcurl's hands.
            for _ in 0..<500 where transport.transfersInLibcurl == 0 { try await Task.sleep(for: .milliseconds(10)) }
            try #require(transport.transfersInLibcurl == 1, "the call never reached libcurl")
            slow.cancel()
            _ = await slow.result
            #expect(transport.transfersInLibcurl == 0)
        }

        @Test(
            "a response's HTTPURLResponse is made when it is read, not for the transport's own checks",
            .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
        func httpResponseMadeOnRead() async throws {
            let transport = try CurlTransport(cookieStorage: nil)
            let client = Client<TestEndpoint>(transport: transport)
            // A gzip-checked, redirect-checked 200, through the Client's validation and over the bare transport.
            let response = try await client.request(FaultServer.endpoint("fast"))
            #expect(response.statusCode == 200)
            #expect(!response.isHTTPResponseMade)
            let endpoint = FaultServer.endpoint("status/404")
            let url = try #require(FaultServer.url?.appendingPathComponent("status/404"))
            let bare = try await transport.send(URLRequest(url: url), context: TransportContext(endpoint: endpoint))
            #expect(bare.statusCode == 404)
            #expect(!bare.isHTTPResponseMade)
            #expect(bare.httpResponse.statusCode == 404)
            #expect(bare.isHTTPResponseMade)
        }

        @Test(
            "a repeated Location with one target is followed once; two different targets are not followed",
            .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
        func repeatedLocation() async throws {
            let client = Client<TestEndpoint>(transport: try CurlTransport())
            #expect(try await client.request(FaultServer.endpoint("location-twice")).string() == "fast")
            let conflicting = try await client.request(
                FaultServer.endpoint("location-twice", query: ["conflict": 1], validation: .none))
            #expect(conflicting.statusCode == 302)
            #expect(conflicting.headers["Location"] == "/fast, /status/500")
        }

        @Test(
            "field values that are not UTF-8 keep their bytes: ISO-8859-1 text, and a Location followed as the server named it",
            .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
        func latin1Fields() async throws {
            let client = Client<TestEndpoint>(transport: try CurlTransport(redirectPolicy: .doNotFollow))
            let response = try await client.request(FaultServer.endpoint("latin1", validation: .none))
            #expect(response.headers["X-Latin"] == "caf\u{E9}")
            #expect(response.headers["Location"] == "/latin1-target%E9")
            let followed = try await Client<TestEndpoint>(transport: try CurlTransport()).request(
                FaultServer.endpoint("latin1"))
            #expect(followed.string() == "/latin1-target%E9")
        }

        @Test("the event loop's thread is named nal.curl where the system shows it (top -H, perf, /proc)")
        func loopThreadNamed() async throws {
            let transport = try CurlTransport()
            // Read on this transport's own loop thread, which runs the jobs that prefer its executor.
            let name = await withTaskExecutorPreference(transport.executor) {
                (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
            #expect(name == "nal.curl")
        }

        @Test(
            "a transport let go ends its event loop at once: right after a call, and when a body it streamed ends later",
            .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
        func loopEndsWithItsTransport() async throws {
            // A loop that missed its shutdown waits 60 s in curl_multi_poll before it looks again.
            func expectEnded(_ loop: () -> AnyObject?, sourceLocation: SourceLocation = #_sourceLocation) async throws {
                for _ in 0..<500 where loop() != nil { try await Task.sleep(for: .milliseconds(10)) }
                #expect(loop() == nil, "the event loop outlived its transport by 5 s", sourceLocation: sourceLocation)
            }
            for _ in 0..<5 {
                weak var loop: AnyObject?
                do {
                    let transport = try CurlTransport()
                    loop = transport.eventLoop
                    _ = try await Client<TestEndpoint>(transport: transport).request(FaultServer.endpoint("fast"))
                }
                try await expectEnded { loop }
            }

            // A streamed body outlives its transport: the loop must end when the body does.
            let key = FaultServer.probe()
            let (stream, streamingLoop, transportGone) = try await Self.streamWithoutTransport(
                FaultServer.endpoint("gated", query: ["key": .string(key), "first": 4, "rest": 4]))
            #expect(transportGone(), "the test holds the transport: it cannot check what happens without it")
            var body = Data()
            for try await chunk in stream {
                body.append(chunk)
                if body.count == 4 {
                    _ = try await Client<TestEndpoint>(transport: try CurlTransport()).request(
                        FaultServer.endpoint("_open", query: ["key": .string(key)]))
                }
            }
            #expect(String(decoding: body, as: UTF8.self) == "aaaabbbb")
            try await expectEnded(streamingLoop)
        }

        /// Starts streaming `endpoint` over a transport that nothing references once this returns; with functions
        /// that say whether the transport and its loop are still alive.
        static func streamWithoutTransport(
            _ endpoint: TestEndpoint
        ) async throws -> (ResponseStream, loop: () -> AnyObject?, transportGone: () -> Bool) {
            let transport = try CurlTransport()
            weak let loop = transport.eventLoop
            weak let weakTransport = transport
            let stream = try await Client<TestEndpoint>(transport: transport).stream(endpoint)
            return (stream, { loop }, { weakTransport == nil })
        }

        @Test(
            "without a cookie storage, a cookie the server sets is neither kept nor sent",
            .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
        func noCookiesByDefault() async throws {
            let key = FaultServer.probe()
            let name = "nal\(key.prefix(8))"
            let client = Client<TestEndpoint>(transport: try CurlTransport())
            _ = try await client.request(
                FaultServer.endpoint("set-cookie", query: ["name": .string(name), "key": .string(key)]))
            let echo = try await client.request(FaultServer.endpoint("echo")).decode(FaultServer.Echo.self)
            #expect(echo.header("Cookie") == nil)
            #expect(HTTPCookieStorage.shared.cookies?.contains { $0.name == name } != true)
        }

        @Test(
            "http_proxy in the environment sends the request to the proxy, with the whole URL as its target",
            .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
        func proxyFromEnvironment() async {
            // In a child process: the environment is the process's.
            await inChildProcess {
                await #expect(processExitsWith: .success) {
                    guard let proxy = FaultServer.url?.absoluteString else { exit(2) }
                    setenv("http_proxy", proxy, 1)
                    unsetenv("no_proxy")
                    unsetenv("NO_PROXY")
                    guard let transport = try? CurlTransport(),
                        let base = URL(string: "http://nal-proxy-test.invalid")
                    else { exit(3) }
                    let client = Client<TestEndpoint>(transport: transport)
                    let endpoint = TestEndpoint(baseURL: base, path: "echo")
                    guard let echo = try? await client.request(endpoint).decode(FaultServer.Echo.self) else { exit(4) }
                    exit(echo.target == "http://nal-proxy-test.invalid/echo" && echo.path == "/echo" ? 0 : 1)
                }
            }
        }

        @Test("a proxy's password from the environment, which libcurl quotes as given, is in no transport's error")
        func proxyPasswordRedacted() async {
            await inChildProcess {
                await #expect(processExitsWith: .success) {
                    unsetenv("no_proxy")
                    unsetenv("NO_PROXY")
                    guard let base = URL(string: "http://127.0.0.1:9") else { exit(3) }
                    // Proxies libcurl refuses, so that its message quotes each as given: a scheme it does not speak,
                    // and values that do not parse as URLs (a space, a '#', no scheme at all).
                    let proxies = [
                        ("gopher://user:s3cretPW@127.0.0.1:1", "gopher://<redacted>@127.0.0.1:1"),
                        ("http://u:pa s3cretPW@127.0.0.1:1", "http://<redacted>@127.0.0.1:1"),
                        ("http://u:p#s3cretPW@127.0.0.1:1", "http://<redacted>@127.0.0.1:1"),
                        ("user:s3cretPW@127.0.0.1:99999", "<redacted>@127.0.0.1:99999"),
                    ]
                    for (proxy, shownAs) in proxies {
                        setenv("all_proxy", proxy, 1)
                        for transport in [try? CurlTransport(), URLSessionTransport()] as [(any Transport)?] {
                            guard let transport else { exit(3) }
                            do throws(NALError) {
                                _ = try await Client<TestEndpoint>(transport: transport).request(
                                    TestEndpoint(baseURL: base, path: "x"))
                                exit(4)
                            } catch {
                                guard case .transport(let urlError) = error else { exit(5) }
                                let shown = [
                                    String(describing: error), String(reflecting: error),
                                    urlError.localizedDescription, String(describing: urlError),
                                ]
                                if shown.contains(where: { $0.contains("s3cretPW") }) { exit(1) }
                                // CurlTransport's message still names the proxy, without its password.
                                if transport is CurlTransport, !error.description.contains(shownAs) { exit(6) }
                            }
                        }
                    }
                    exit(0)
                }
            }
        }

        @Test(
            "a stored Secure cookie never goes over http, and a cookie goes only to its path",
            .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
        func cookieScope() async throws {
            let key = FaultServer.probe().prefix(8)
            let host = try #require(FaultServer.url?.host)
            func cookie(_ name: String, path: String, secure: Bool) -> HTTPCookie? {
                var properties: [HTTPCookiePropertyKey: Any] = [
                    .name: name, .value: "v", .domain: host, .path: path,
                ]
                if secure { properties[.secure] = "TRUE" }
                return HTTPCookie(properties: properties)
            }
            let storage = TestTransports.privateCookieStorage()
            let secure = try #require(cookie("secure\(key)", path: "/", secure: true))
            let elsewhere = try #require(cookie("elsewhere\(key)", path: "/private", secure: false))
            let plain = try #require(cookie("plain\(key)", path: "/", secure: false))
            for stored in [secure, elsewhere, plain] { storage.setCookie(stored) }
            let client = Client<TestEndpoint>(transport: try CurlTransport(cookieStorage: storage))
            let echo = try await client.request(FaultServer.endpoint("echo")).decode(FaultServer.Echo.self)
            let sent = echo.header("Cookie") ?? ""
            #expect(sent.contains("plain\(key)=v"))
            #expect(!sent.contains("secure\(key)"))
            #expect(!sent.contains("elsewhere\(key)"))
        }

        @Test(
            "a request that does not handle cookies neither sends the stored ones nor stores new ones",
            .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
        func requestWithoutCookies() async throws {
            let key = FaultServer.probe().prefix(8)
            let host = try #require(FaultServer.url?.host)
            let storage = TestTransports.privateCookieStorage()
            let stored = try #require(
                HTTPCookie(properties: [.name: "kept\(key)", .value: "v", .domain: host, .path: "/"]))
            storage.setCookie(stored)
            let transport = try CurlTransport(cookieStorage: storage)
            let base = try #require(FaultServer.url)
            var echo = URLRequest(url: base.appendingPathComponent("echo"))
            echo.httpShouldHandleCookies = false
            let answer = try await transport.send(echo, context: TransportContext(endpoint: TestEndpoint()))
            #expect(!String(decoding: answer.data, as: UTF8.self).contains("kept\(key)"))
            var setting = URLRequest(
                url: base.appendingPathComponent("set-cookie").appending(queryItems: [
                    URLQueryItem(name: "name", value: "new\(key)")
                ]))
            setting.httpShouldHandleCookies = false
            _ = try await transport.send(setting, context: TransportContext(endpoint: TestEndpoint()))
            #expect(storage.cookies?.map(\.name) == ["kept\(key)"])
        }

        @Test(
            "POST, PUT and PATCH without a body say Content-Length: 0; GET and DELETE send no length",
            .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
        func emptyBodies() async throws {
            let client = Client<TestEndpoint>(transport: try CurlTransport())
            for method: HTTPMethod in [.post, .put, .patch, .get, .delete] {
                let echo = try await client.request(FaultServer.endpoint("echo", method: method))
                    .decode(FaultServer.Echo.self)
                let expected: String? = [.post, .put, .patch].contains(method) ? "0" : nil
                #expect(echo.header("Content-Length") == expected, "\(method)")
                #expect(echo.method == method.rawValue)
            }
        }

        @Test(
            "its connections are closed on exec: a child process the program starts cannot hold one open",
            .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
        func socketsClosedOnExec() async throws {
            let key = FaultServer.probe()
            let client = Client<TestEndpoint>(transport: try CurlTransport())
            let endpoint = FaultServer.endpoint(
                "sse", query: ["script": "endless", "interval_ms": 20_000, "key": .string(key)])
            let serverPort = try #require(FaultServer.url?.port)
            var flags: Int?
            for try await _ in try await client.stream(endpoint).serverSentEvents {
                let port = try #require(try await FaultServer.endlessStream(key: key).clientPort)
                let inode = try #require(TCPTable.establishedSocket(localPort: port, remotePort: serverPort))
                flags = TCPTable.descriptorFlags(socket: inode)
                break
            }
            let found = try #require(flags, "no descriptor of this process holds the stream's socket")
            #expect(found & 0o2_000_000 != 0, "O_CLOEXEC is not set: flags \(String(found, radix: 8))")
        }

        @Test("a certificate authorities file that cannot be read is refused when the transport is made")
        func unreadableCertificateAuthorities() {
            for file in [URL(fileURLWithPath: "/nonexistent/ca.pem"), URL(fileURLWithPath: NSTemporaryDirectory())] {
                #expect {
                    try CurlTransport(certificateAuthorities: file)
                } throws: { error in
                    guard case .tls(let failure) = error as? NALError else { return false }
                    return failure.check == .localFile(file) && "\(error)".contains(file.path)
                }
            }
        }
    }

    @Suite(
        "CurlTransport over HTTPS: HTTP/2 when ALPN agrees, certificates verified",
        .enabled(if: H2Server.url != nil, H2Server.skipReason))
    struct CurlTransportHTTP2Tests {
        static func client(maximumConnectionsPerHost: Int = 6) throws -> Client<TestEndpoint> {
            let authority = try #require(H2Server.certificateAuthority)
            return Client<TestEndpoint>(
                transport: try CurlTransport(
                    maximumConnectionsPerHost: maximumConnectionsPerHost, certificateAuthorities: authority))
        }

        @Test("a server that offers h2 is spoken to in HTTP/2")
        func negotiatesHTTP2() async throws {
            let answer = try await Self.client().request(H2Server.endpoint("hello")).decode(H2Server.Answer.self)
            #expect(answer.protocol_ == "h2")
            #expect(answer.path == "/hello")
        }

        @Test("calls at once share one HTTP/2 connection, their streams open side by side")
        func multiplexes() async throws {
            let client = try Self.client()
            // A first call opens the connection, so that the others find it and need no second one.
            let first = try await client.request(H2Server.endpoint("warm")).decode(H2Server.Answer.self)
            let answers = try await withThrowingTaskGroup(of: H2Server.Answer.self) { group in
                for index in 0..<6 {
                    group.addTask {
                        try await client.request(H2Server.endpoint("stream/\(index)", holdMilliseconds: 600))
                            .decode(H2Server.Answer.self)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.count == 6)
            #expect(answers.allSatisfy { $0.connection == first.connection && $0.protocol_ == "h2" })
            #expect(answers.map(\.peakStreams).max() ?? 0 >= 2, "no two streams were open at once")
        }

        @Test("a stream whose consumer is behind holds an HTTP/2 server back, and calls beside it are not held")
        func pausedStreamHoldsTheServerBack() async throws {
            let client = try Self.client()
            let tag = "held\(FaultServer.probe().prefix(8))"
            let total = 128_000_000
            let stream = try await client.stream(
                H2Server.endpoint("big/\(tag)", query: ["n": .int(total)]))
            var iterator = stream.makeAsyncIterator()
            var count = try await iterator.next()?.count ?? 0
            // The consumer takes nothing for two seconds: the server could send all 128 MB in that time.
            try await Task.sleep(for: .seconds(2))
            let clock = ContinuousClock()
            let start = clock.now
            let sent = try await client.request(H2Server.endpoint("sent/\(tag)")).decode(H2Server.Answer.self)
            #expect(clock.now - start < Timing.bound(.seconds(1)), "a call beside the paused stream waited for it")
            // What the stream holds (1 MiB), plus what libcurl lets in after its pause (it shuts the stream's window,
            // but credit granted before, up to 32 MiB in libcurl 7.88, may still arrive), plus the sockets' buffers.
            let held = try #require(sent.sent)
            #expect(held < 40_000_000, "the server sent \(held) bytes to a consumer that took \(count)")
            #expect(stream.body.waiting.memory <= StreamedBody.defaultHighWater + (1 << 20))
            while let chunk = try await iterator.next() { count += chunk.count }
            #expect(count == total)
        }

        @Test("a cookie set over HTTP/2, in a lowercase set-cookie field, is kept and sent back")
        func cookieOverHTTP2() async throws {
            let name = "h2\(FaultServer.probe().prefix(8))"
            let authority = try #require(H2Server.certificateAuthority)
            let client = Client<TestEndpoint>(
                transport: try CurlTransport(
                    cookieStorage: TestTransports.privateCookieStorage(), certificateAuthorities: authority))
            _ = try await client.request(H2Server.endpoint("set-cookie", query: ["name": .string(name)]))
            let answer = try await client.request(H2Server.endpoint("echo")).decode(H2Server.Answer.self)
            #expect(answer.protocol_ == "h2")
            #expect(answer.cookie?.contains("\(name)=h2-baked") == true)
        }

        @Test("a certificate for another name is refused, even when its authority is trusted")
        func verifiesTheName() async throws {
            // The server's certificate names localhost only.
            let url = try #require(H2Server.url)
            var components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
            components.host = "127.0.0.1"
            let byAddress = try #require(components.url)
            let error = await #expect(throws: NALError.self) {
                try await Self.client().request(TestEndpoint(baseURL: byAddress, path: "secret"))
            }
            guard case .tls(let failure) = error else {
                Issue.record("expected a TLS failure, got \(String(describing: error))")
                return
            }
            #expect(failure.check == .hostnameMismatch)
        }

        @Test("without the server's certificate authority, the call fails as untrusted")
        func verifiesCertificates() async throws {
            let client = Client<TestEndpoint>(transport: try CurlTransport())
            let error = await #expect(throws: NALError.self) {
                try await client.request(H2Server.endpoint("secret"))
            }
            guard case .tls(let failure) = error else {
                Issue.record("expected a TLS failure, got \(String(describing: error))")
                return
            }
            #expect(failure.check == .untrustedChain)
        }
    }
#endif
