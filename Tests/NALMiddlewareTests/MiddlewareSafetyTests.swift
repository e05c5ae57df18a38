import Foundation
import NALCore
import NALLogging
import NALTestSupport
import Testing

@testable import NALMiddleware

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Middleware under hostile servers and misuse")
struct MiddlewareSafetyTests {
    static func response(retryAfter: String) throws -> Response {
        try MemoryTransport.response(
            to: URLRequest(url: try #require(URL(string: "https://api.example.com/x"))), status: 503
        ).withHeader("Retry-After", retryAfter)
    }

    @Test("Retry-After dates with absurd years, in every format, are refused in a child process that must not trap")
    func hugeYears() async {
        await inChildProcess {
            await #expect(processExitsWith: .success) {
                for text in [
                    "Sun, 06 Nov 99999999999999 08:49:37 GMT", "Sunday, 06-Nov-99999999999999 08:49:37 GMT",
                    "Sun Nov  6 08:49:37 99999999999999", "Sun, 06 Nov 9223372036854775807 08:49:37 GMT",
                    "Sun, 06 Nov 10000 08:49:37 GMT", "Sun, 99999999999999 Nov 1994 99999999999:49:37 GMT",
                ] {
                    if RetryAfter.httpDate(text) != nil { exit(1) }
                    guard let response = try? MiddlewareSafetyTests.response(retryAfter: text) else { exit(2) }
                    if RetryAfter.delay(in: response) != nil { exit(3) }
                }
                exit(0)
            }
        }
    }

    @Test(
        "Retry-After seconds are digits only; huge numbers saturate",
        arguments: [
            ("2", Duration.seconds(2)), ("0x2", nil), ("0.5", nil), ("+3", nil), ("1e3", nil), ("-1", nil),
            ("00007", .seconds(7)), ("99999999999999999999999999", .seconds(RetryAfter.maximumSeconds)),
        ] as [(String, Duration?)])
    func delaySeconds(text: String, expected: Duration?) throws {
        #expect(RetryAfter.delay(in: try Self.response(retryAfter: text)) == expected)
    }

    @Test("an HTTP-date Retry-After is waited for through the middleware, not taken as 0 s")
    func httpDateWaits() async throws {
        let date = Date().addingTimeInterval(2)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let transport = ScriptedTransport([503, 200], headers: ["Retry-After": formatter.string(from: date)])
        let clock = ContinuousClock()
        let start = clock.now
        _ = try await Client<TestEndpoint>(middleware: [RetryMiddleware()], transport: transport).request(
            TestEndpoint())
        // Whole seconds: the wait is at least the second or so left until the date.
        #expect(clock.now - start >= .milliseconds(900))
        #expect(transport.requests.count == 2)
    }

    @Test("misuse never traps: a backoff cap of 10^12 s, a negative body limit, a zero base delay")
    func misuse() async {
        await inChildProcess {
            await #expect(processExitsWith: .success) {
                let huge = RetryMiddleware(
                    baseDelay: .seconds(1_000_000_000_000), maximumDelay: .seconds(1_000_000_000_000))
                for attempt in [2, 3, 30, 64, Int.max] where huge.backoff(before: attempt) > .seconds(86_400) {
                    exit(1)
                }
                let negative = RetryMiddleware(baseDelay: .seconds(-5), maximumDelay: .seconds(-1))
                if negative.backoff(before: 3) != .zero { exit(2) }
                exit(0)
            }
        }
        await inChildProcess {
            await #expect(processExitsWith: .success) {
                let logging = LoggingMiddleware(options: [.bodies], maximumBodyBytes: -1, level: .error)
                let transport = MemoryTransport(body: Data("{\"a\":1}".utf8))
                do {
                    try await LogCapture.capture("dev.nal=debug") { _ in
                        _ = try await Client<TestEndpoint>(middleware: [logging], transport: transport).request(
                            TestEndpoint())
                    }
                } catch {
                    exit(1)
                }
                exit(0)
            }
        }
    }
}

@Suite("Token refresh: edge cases")
struct TokenRefreshEdgeTests {
    struct RefreshDenied: Error {}

    @Test("after a failed refresh, the next 401 within the cool-down fails at once without another refresh")
    func coolDown() async throws {
        for (cooldown, pause, expected) in [
            (Duration.seconds(60), Duration.zero, 1), (.milliseconds(20), .milliseconds(200), 3),
        ] {
            let refreshes = Locked(0)
            let auth = AccessTokenMiddleware(
                token: { _ in "stale" },
                refresh: {
                    refreshes.withLock { $0 += 1 }
                    throw RefreshDenied()
                }, refreshCooldown: cooldown)
            let client = Client<AuthorizedEndpoint>(middleware: [auth], transport: TokenServer(validToken: "fresh"))
            for _ in 0..<3 {
                await #expect(throws: NALError.self) { try await client.request(AuthorizedEndpoint()) }
                try await Task.sleep(for: pause)
            }
            #expect(refreshes.withLock { $0 } == expected, "cool-down \(cooldown)")
        }
    }

    @Test("resetRefreshCooldown() after a new sign-in lets the next 401 refresh at once")
    func resetCoolDown() async throws {
        let refreshes = Locked(0)
        let auth = AccessTokenMiddleware(
            token: { _ in "stale" },
            refresh: {
                refreshes.withLock { $0 += 1 }
                throw RefreshDenied()
            }, refreshCooldown: .seconds(60))
        let client = Client<AuthorizedEndpoint>(middleware: [auth], transport: TokenServer(validToken: "fresh"))
        await #expect(throws: NALError.self) { try await client.request(AuthorizedEndpoint()) }
        await #expect(throws: NALError.self) { try await client.request(AuthorizedEndpoint()) }
        #expect(refreshes.withLock { $0 } == 1, "cooling down")
        auth.resetRefreshCooldown()
        await #expect(throws: NALError.self) { try await client.request(AuthorizedEndpoint()) }
        #expect(refreshes.withLock { $0 } == 2, "refreshed again after the reset")
    }

    @Test("a request that waited for a failing refresh gets the 401 that started it")
    func waiterGetsTrigger() async throws {
        let started = Locked(false)
        let auth = AccessTokenMiddleware(
            token: { _ in "stale" },
            refresh: {
                started.withLock { $0 = true }
                try await Task.sleep(for: .milliseconds(300))
                throw RefreshDenied()
            })
        let client = Client<AuthorizedEndpoint>(middleware: [auth], transport: TokenServer(validToken: "fresh"))
        let first = Task { try? await client.request(AuthorizedEndpoint()) }
        while !started.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        do {
            _ = try await client.request(AuthorizedEndpoint())
            Issue.record("the refresh failed, yet the waiting request passed")
        } catch {
            guard case .tokenRefreshFailed(let underlying, let response) = error else {
                Issue.record("expected tokenRefreshFailed, got \(error)")
                return
            }
            #expect(underlying is RefreshDenied)
            #expect(response?.statusCode == 401, "the response that started the refresh")
        }
        _ = await first.value
    }

    @Test("the replay after a refresh is attempt 2, so progress and logs can tell it from the first")
    func replayAttempt() async throws {
        let current = Locked("v1")
        let auth = AccessTokenMiddleware(
            token: { _ in current.withLock { $0 } }, refresh: { current.withLock { $0 = "v2" } })
        let server = ScriptedTransport([401, 200])
        _ = try await Client<AuthorizedEndpoint>(middleware: [auth], transport: server).request(AuthorizedEndpoint())
        #expect(server.contexts.map(\.attempt) == [1, 2])
    }

    @Test("a 401 to a request sent before a completed refresh replays without a second refresh")
    func generationCheck() async throws {
        let current = Locked("v1")
        let refreshes = Locked(0)
        let auth = AccessTokenMiddleware(
            token: { _ in current.withLock { $0 } },
            refresh: {
                refreshes.withLock { $0 += 1 }
                current.withLock { $0 = "v2" }
            })
        // The slow request leaves with v1, and its 401 arrives after the fast one's refresh has finished.
        let slow = TokenServer(validToken: "v2", delay: .milliseconds(400))
        let fast = TokenServer(validToken: "v2", delay: .milliseconds(10))
        let slowCall = Task {
            try await Client<AuthorizedEndpoint>(middleware: [auth], transport: slow).request(AuthorizedEndpoint())
        }
        try await Task.sleep(for: .milliseconds(50))
        _ = try await Client<AuthorizedEndpoint>(middleware: [auth], transport: fast).request(AuthorizedEndpoint())
        #expect(try await slowCall.value.statusCode == 200)
        #expect(refreshes.withLock { $0 } == 1)
    }

    @Test("a call waiting for a 20 s refresh ends at its 1 s total timeout, and at once when cancelled")
    func escapableRefresh() async throws {
        let auth = AccessTokenMiddleware(
            token: { _ in "stale" },
            refresh: {
                // A refresh that ignores cancellation, as a blocking network library would.
                await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                    DispatchQueue.global().asyncAfter(deadline: .now() + 20) { continuation.resume() }
                }
            })
        let client = Client<AuthorizedEndpoint>(middleware: [auth], transport: TokenServer(validToken: "fresh"))
        let clock = ContinuousClock()
        var start = clock.now
        await #expect(throws: NALError.self) {
            try await client.request(AuthorizedEndpoint(), options: RequestOptions(totalTimeout: 1))
        }
        #expect(clock.now - start < Timing.bound(.seconds(1)))

        start = clock.now
        let call = Task { () async -> NALError? in
            do throws(NALError) {
                _ = try await client.request(AuthorizedEndpoint())
                return nil
            } catch {
                return error
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        call.cancel()
        guard case .cancelled? = await call.value else {
            Issue.record("a cancelled call did not end with .cancelled")
            return
        }
        #expect(clock.now - start < Timing.bound(.milliseconds(300)))
    }
}

extension Response {
    /// This response with one more header.
    func withHeader(_ name: String, _ value: String) throws -> Response {
        var headers: [String: String] = [:]
        for field in self.headers { headers[field.name] = field.value }
        headers[name] = value
        guard let url = request.url,
            let http = HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: "HTTP/1.1", headerFields: headers)
        else { throw NALError.transport(URLError(.badURL)) }
        return Response(request: request, httpResponse: http, data: data, timing: timing)
    }
}
