import Foundation
import NALCore
import NALLogging
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a client that names no transport gets: on Linux, the process's shared CurlTransport, with URLSession's
/// default cookie storage; the servers that stop a URLSession client (Linux fact: a chunked trailer, a
/// `Content-Length` of 2^63−1) do not stop it.
@Suite("Integration: the default transport of Client()")
struct DefaultTransportTests {
    #if os(Linux)
        @Test("on Linux, Client() uses one CurlTransport that the process shares, with HTTPCookieStorage.shared")
        func sharedCurlTransport() throws {
            let first = try #require(Client<TestEndpoint>().transport as? CurlTransport)
            let second = try #require(DefaultTransport.make() as? CurlTransport)
            #expect(first === second)
            #expect(first === DefaultTransport.sharedCurlTransport)
            #expect(first.cookieStorage === HTTPCookieStorage.shared)
            #expect(first.maximumConnectionsPerHost == DefaultTransport.sharedConnectionsPerHost)
            // A CurlTransport the caller makes keeps its own defaults: no cookies unless given a storage.
            #expect(try CurlTransport().cookieStorage == nil)
        }

        /// In a child process: if the refusal broke, the shared transport would end under every later test.
        @Test(
            "the shared transport refuses shutdown() with a warning: clients that name no transport go on working",
            .enabled(if: HTTPBin.url != nil, HTTPBin.skipReason))
        func sharedTransportRefusesShutdown() async {
            await inChildProcess {
                await #expect(processExitsWith: .success) {
                    let sink = InMemorySink()
                    LoggingSystem.bootstrapForTesting(sinks: [sink], configuration: LogConfiguration())
                    guard let shared = DefaultTransport.sharedCurlTransport else { exit(1) }
                    await shared.shutdown()
                    guard !shared.eventLoopHasEnded else { exit(2) }
                    guard sink.entries.contains(where: { $0.message.contains("shutdown() ignored") }) else { exit(3) }
                    let response = try? await Client<TestEndpoint>().request(HTTPBin.endpoint("get"))
                    exit(response?.statusCode == 200 ? 0 : 4)
                }
            }
        }

        @Test("with libcurl missing, Client() falls back to URLSessionTransport and says why, once")
        func fallbackWithoutLibcurl() async {
            await inChildProcess {
                await #expect(processExitsWith: .success) {
                    setenv("NAL_LIBCURL", "/nonexistent/libcurl-nal.so.4", 1)
                    let sink = InMemorySink()
                    LoggingSystem.bootstrapForTesting(sinks: [sink], configuration: LogConfiguration())
                    guard Client<TestEndpoint>().transport is URLSessionTransport,
                        DefaultTransport.make() is URLSessionTransport, DefaultTransport.sharedCurlTransport == nil
                    else { exit(1) }
                    let notices = sink.entries.filter { $0.message.contains("/nonexistent/libcurl-nal.so.4") }
                    exit(notices.count == 1 ? 0 : 2)
                }
            }
        }

        @Test("NAL_DEFAULT_TRANSPORT=urlsession keeps URLSessionTransport for every client that names none")
        func environmentKeepsURLSession() async {
            await inChildProcess {
                await #expect(processExitsWith: .success) {
                    setenv("NAL_DEFAULT_TRANSPORT", "urlsession", 1)
                    guard Client<TestEndpoint>().transport is URLSessionTransport,
                        DefaultTransport.sharedCurlTransport == nil
                    else { exit(1) }
                    exit(0)
                }
            }
        }

        @Test(
            "Client() sends the User-Agent that URLSessionTransport sends, unless the request has its own",
            .enabled(if: HTTPBin.url != nil, HTTPBin.skipReason))
        func userAgent() async throws {
            struct Echo: Decodable { var headers: [String: String] }
            let viaDefault = try await Client<TestEndpoint>().request(HTTPBin.endpoint("headers"), as: Echo.self)
            let viaURLSession = try await Client<TestEndpoint>(transport: URLSessionTransport()).request(
                HTTPBin.endpoint("headers"), as: Echo.self)
            let sent = try #require(viaDefault.headers["User-Agent"])
            #expect(sent == viaURLSession.headers["User-Agent"])
            #expect(sent.contains("curl/"))
            for spelling in ["User-Agent", "user-agent"] {
                let own = try await Client<TestEndpoint>().request(
                    HTTPBin.endpoint("headers", headers: [spelling: "mine/1"]), as: Echo.self)
                #expect(own.headers["User-Agent"] == "mine/1", "\(spelling)")
            }
            // A field set raw, as a hook or a middleware may (allHTTPHeaderFields keeps its spelling), counts too.
            let raw = Client<TestEndpoint>(willSend: { request, _ in
                var request = request
                request.allHTTPHeaderFields = ["user-agent": "mine/2"]
                return request
            })
            let rawEcho = try await raw.request(HTTPBin.endpoint("headers"), as: Echo.self)
            #expect(rawEcho.headers["User-Agent"] == "mine/2")
            // A CurlTransport the caller makes adds none.
            let plain = try await Client<TestEndpoint>(transport: try CurlTransport()).request(
                HTTPBin.endpoint("headers"), as: Echo.self)
            #expect(plain.headers["User-Agent"] == nil)
        }

        @Test(
            "clients that name no transport share more than six connections a host: seven held calls block no other",
            .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
        func connectionsPerHost() async throws {
            let held = (0..<7).map { index in
                Task {
                    try await Client<TestEndpoint>().request(
                        FaultServer.endpoint("hold", query: ["ms": 20_000, "key": .string("held-\(index)")]))
                }
            }
            defer { held.forEach { $0.cancel() } }
            let shared = try #require(DefaultTransport.sharedCurlTransport)
            let clock = ContinuousClock()
            let start = clock.now
            while shared.transfersInLibcurl < 7 {
                try #require(clock.now - start < Timing.bound(.seconds(5)), "the held calls never reached libcurl")
                try await Task.sleep(for: .milliseconds(10))
            }
            // With six connections a host, this call would wait 20 s for one and time out first.
            let response = try await Client<TestEndpoint>().request(FaultServer.endpoint("fast", timeout: 10))
            #expect(response.statusCode == 200)
        }

        @Test(
            "Client() with no transport named reads a body with a chunked trailer (URLSession's stops the process)",
            .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
        func trailer() async {
            await inChildProcess {
                await #expect(processExitsWith: .success) {
                    let response = try? await Client<TestEndpoint>().request(FaultServer.endpoint("trailer"))
                    exit(response?.string() == "ok" ? 0 : 1)
                }
            }
        }

        @Test(
            "Client() with no transport named survives a Content-Length of 2^63 - 1: a lost connection, no trap",
            .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
        func largestContentLength() async {
            await inChildProcess {
                await #expect(processExitsWith: .success) {
                    do {
                        _ = try await Client<TestEndpoint>().request(
                            FaultServer.endpoint("lengths", query: ["value": "9223372036854775807"]))
                        exit(1)
                    } catch {
                        guard case .transport(let urlError)? = error as? NALError else { exit(2) }
                        exit(urlError.code == .networkConnectionLost ? 0 : 3)
                    }
                }
            }
        }
    #endif

    /// The docs' one line, compiled and run (it can only fail if the line stops building or naming URLSession).
    @Test("the one line that keeps URLSession gives the client a URLSessionTransport of its own")
    func keepURLSession() {
        // Docs: begin keep-urlsession
        let client = Client<GitHub>(transport: URLSessionTransport())
        // Docs: end keep-urlsession
        #expect(client.transport is URLSessionTransport)
    }

    @Test(
        "Client() keeps a server's cookie in HTTPCookieStorage.shared and sends it back, as URLSession's default does",
        .enabled(if: HTTPBin.url != nil, HTTPBin.skipReason))
    func cookies() async throws {
        let name = "nal-default-\(UUID().uuidString.prefix(8))"
        let storage = HTTPCookieStorage.shared
        defer {
            for cookie in storage.cookies ?? [] where cookie.name == name { storage.deleteCookie(cookie) }
        }
        // httpbin answers /cookies/set with a 302 that sets the cookie, to /cookies, which lists those it received.
        let setting = HTTPBin.endpoint(
            "cookies/set", requestType: .parameters([name: "baked"], encoding: URLEncoding.queryString))
        let set = try await Client<TestEndpoint>().request(setting)
        #expect(try set.decode([String: [String: String]].self)["cookies"]?[name] == "baked")
        #expect(storage.cookies?.contains { $0.name == name && $0.value == "baked" } == true)
        // Another client that names no transport shares the storage.
        let echoed = try await Client<TestEndpoint>().request(HTTPBin.endpoint("cookies"))
        #expect(try echoed.decode([String: [String: String]].self)["cookies"]?[name] == "baked")
    }
}
