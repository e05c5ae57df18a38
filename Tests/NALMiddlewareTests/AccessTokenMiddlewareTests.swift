import Foundation
import NALCore
import NALLogging
import NALMiddleware
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("AccessTokenMiddleware")
struct AccessTokenMiddlewareTests {
    @Test(
        "the Authorization header for each token type; .none and endpoints that don't conform pass through",
        arguments: [
            (AccessTokenType.bearer, "Bearer t0k"), (.basic, "Basic t0k"), (.custom("Token"), "Token t0k"),
            (.custom(""), "t0k"),
        ])
    func headers(type: AccessTokenType, expected: String) async throws {
        let transport = MemoryTransport()
        let auth = AccessTokenMiddleware(token: { _ in "t0k" })
        _ = try await Client<AuthorizedEndpoint>(middleware: [auth], transport: transport).request(
            AuthorizedEndpoint(accessTokenType: type))
        #expect(transport.requests.last?.value(forHTTPHeaderField: "Authorization") == expected)
    }

    @Test("no header for .none or for an endpoint that does not conform")
    func passThrough() async throws {
        let transport = MemoryTransport()
        let auth = AccessTokenMiddleware(token: { _ in "t0k" })
        _ = try await Client<AuthorizedEndpoint>(middleware: [auth], transport: transport).request(
            AuthorizedEndpoint(accessTokenType: .none))
        _ = try await Client<TestEndpoint>(middleware: [auth], transport: transport).request(TestEndpoint())
        #expect(transport.requests.allSatisfy { $0.value(forHTTPHeaderField: "Authorization") == nil })
    }

    @Test("100 concurrent 401s: exactly one refresh, each request replayed once and successful, at most 200 sent")
    func singleFlightRefresh() async throws {
        let server = TokenServer(validToken: "fresh")
        let current = Locked("stale")
        let refreshes = Locked(0)
        let auth = AccessTokenMiddleware(
            token: { _ in current.withLock { $0 } },
            refresh: {
                refreshes.withLock { $0 += 1 }
                try await Task.sleep(for: .milliseconds(100))
                current.withLock { $0 = "fresh" }
            })
        let client = Client<AuthorizedEndpoint>(middleware: [auth], transport: server)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<100 {
                group.addTask {
                    try await client.request(AuthorizedEndpoint(base: TestEndpoint(path: "item/\(index)"))).statusCode
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 100))
        #expect(refreshes.withLock { $0 } == 1)
        #expect(server.requests <= 200)
        #expect(server.requests >= 100)
    }

    @Test("a failing refresh fails every waiting request with tokenRefreshFailed, keeping the 401")
    func failingRefresh() async throws {
        struct RefreshDenied: Error {}
        let server = TokenServer(validToken: "fresh")
        let refreshes = Locked(0)
        let auth = AccessTokenMiddleware(
            token: { _ in "stale" },
            refresh: {
                refreshes.withLock { $0 += 1 }
                try await Task.sleep(for: .milliseconds(100))
                throw RefreshDenied()
            })
        let client = Client<AuthorizedEndpoint>(middleware: [auth], transport: server)
        let failures = await withTaskGroup(of: NALError?.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    do throws(NALError) {
                        _ = try await client.request(AuthorizedEndpoint())
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            return await group.reduce(into: [NALError?]()) { $0.append($1) }
        }
        #expect(failures.count == 100)
        for failure in failures {
            guard case .tokenRefreshFailed(let underlying, let response)? = failure else {
                Issue.record("expected tokenRefreshFailed, got \(String(describing: failure))")
                continue
            }
            #expect(underlying is RefreshDenied)
            #expect(response?.statusCode == 401)
            #expect(failure?.response?.statusCode == 401)
        }
        #expect(refreshes.withLock { $0 } == 1)
    }

    @Test("a request whose token was already replaced replays without a second refresh; a replay is never retried")
    func noSecondRefreshAndNoLoop() async throws {
        let server = TokenServer(validToken: "v2")
        let current = Locked("v1")
        let refreshes = Locked(0)
        let auth = AccessTokenMiddleware(
            token: { _ in current.withLock { $0 } },
            refresh: {
                refreshes.withLock { $0 += 1 }
                current.withLock { $0 = "v2" }
            })
        let client = Client<AuthorizedEndpoint>(middleware: [auth], transport: server)
        #expect(try await client.request(AuthorizedEndpoint()).statusCode == 200)
        #expect(refreshes.withLock { $0 } == 1)

        // The server moves on to v3, and refreshing does not help: one refresh, one replay, then the 401 returns.
        server.rotate(to: "v3")
        await #expect(throws: NALError.self) { try await client.request(AuthorizedEndpoint()) }
        #expect(refreshes.withLock { $0 } == 2)
        #expect(server.requests == 2 + 2)
    }

    @Test(
        "httpbin: /bearer accepts the bearer token, /basic-auth the basic one",
        .enabled(if: HTTPBin.url != nil, HTTPBin.skipReason))
    func againstHTTPBin() async throws {
        let url = try #require(HTTPBin.url)
        let bearer = AccessTokenMiddleware(token: { _ in "nal-token" })
        let client = Client<AuthorizedEndpoint>(middleware: [bearer])
        let response = try await client.request(AuthorizedEndpoint(base: TestEndpoint(baseURL: url, path: "bearer")))
        #expect(try response.json() == ["authenticated": true, "token": "nal-token"])

        let basic = AccessTokenMiddleware(token: { _ in Data("nal:s3cret".utf8).base64EncodedString() })
        let basicClient = Client<AuthorizedEndpoint>(middleware: [basic])
        let authenticated = try await basicClient.request(
            AuthorizedEndpoint(base: TestEndpoint(baseURL: url, path: "basic-auth/nal/s3cret"), accessTokenType: .basic)
        )
        #expect(try authenticated.json() == ["authenticated": true, "user": "nal"])

        let unauthorized = Client<TestEndpoint>(middleware: [bearer])
        await #expect(throws: NALError.self) {
            try await unauthorized.request(TestEndpoint(baseURL: url, path: "bearer"))
        }
    }

    @Test(
        "a real 401 with WWW-Authenticate is refreshed and replayed through URLSessionTransport",
        .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
    func refreshAgainstTheFaultServer() async throws {
        let url = try #require(FaultServer.url)
        let current = Locked("expired")
        let auth = AccessTokenMiddleware(
            token: { _ in current.withLock { $0 } }, refresh: { current.withLock { $0 = "renewed" } })
        let client = Client<AuthorizedEndpoint>(middleware: [auth])
        let endpoint = AuthorizedEndpoint(
            base: TestEndpoint(
                baseURL: url, path: "protected",
                requestType: .parameters(["token": "renewed"], encoding: URLEncoding.queryString)))
        let response = try await client.request(endpoint)
        #expect(response.string() == "authorized")
    }
}
