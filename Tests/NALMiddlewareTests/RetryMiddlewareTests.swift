import Foundation
import NALCore
import NALLogging
import NALTestSupport
import Testing

@testable import NALMiddleware

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("RetryMiddleware")
struct RetryMiddlewareTests {
    static let fast = RetryMiddleware(baseDelay: .milliseconds(1), maximumDelay: .milliseconds(5))

    /// Records the attempt number every request reaches it with.
    struct Attempts: Middleware {
        let seen = Locked<[Int]>([])
        func intercept(
            _ request: URLRequest, context: TransportContext,
            next: @Sendable (URLRequest, TransportContext) async throws -> Response
        ) async throws -> Response {
            seen.withLock { $0.append(context.attempt) }
            return try await next(request, context)
        }
    }

    @Test("a GET that gets 503, 503, 200 succeeds after three attempts; inner middleware sees attempts 1, 2, 3")
    func retriesToSuccess() async throws {
        let transport = ScriptedTransport([503, 503, 200])
        let attempts = Attempts()
        let response = try await Client<TestEndpoint>(middleware: [Self.fast, attempts], transport: transport)
            .request(TestEndpoint())
        #expect(response.statusCode == 200)
        #expect(transport.requests.count == 3)
        #expect(attempts.seen.withLock { $0 } == [1, 2, 3])
    }

    @Test("every attempt carries the caller's idle timeout, so that a retry's 60 s are 60 s too")
    func attemptsKeepTheIdleTimeout() async throws {
        struct IdleTimeouts: Middleware {
            let seen = Locked<[TimeInterval?]>([])
            func intercept(
                _ request: URLRequest, context: TransportContext,
                next: @Sendable (URLRequest, TransportContext) async throws -> Response
            ) async throws -> Response {
                seen.withLock { $0.append(context.idleTimeout) }
                return try await next(request, context)
            }
        }
        let seen = IdleTimeouts()
        let client = Client<TestEndpoint>(middleware: [Self.fast, seen], transport: ScriptedTransport([503, 200]))
        _ = try await client.request(TestEndpoint(timeout: 60))
        _ = try await Client<TestEndpoint>(middleware: [Self.fast, seen], transport: ScriptedTransport([503, 200]))
            .request(TestEndpoint(), options: RequestOptions(timeout: 7))
        _ = try await Client<TestEndpoint>(middleware: [Self.fast, seen], transport: ScriptedTransport([200]))
            .request(TestEndpoint())
        #expect(seen.seen.withLock { $0 } == [60, 60, 7, 7, nil])
    }

    @Test("after maxAttempts the last response is returned, and validation rejects it")
    func givesUp() async throws {
        let transport = ScriptedTransport([503])
        do {
            _ = try await Client<TestEndpoint>(middleware: [Self.fast], transport: transport).request(TestEndpoint())
            Issue.record("a 503 passed")
        } catch {
            #expect(error.response?.statusCode == 503)
        }
        #expect(transport.requests.count == 3)
    }

    @Test("a POST is not retried by default; it is when POST is added")
    func postNotRetried() async throws {
        let transport = ScriptedTransport([503, 200])
        let post = TestEndpoint(method: .post)
        await #expect(throws: NALError.self) {
            try await Client<TestEndpoint>(middleware: [Self.fast], transport: transport).request(post)
        }
        #expect(transport.requests.count == 1)
        var retryingPosts = Self.fast
        retryingPosts.retryableMethods.insert(.post)
        let second = ScriptedTransport([503, 200])
        _ = try await Client<TestEndpoint>(middleware: [retryingPosts], transport: second).request(post)
        #expect(second.requests.count == 2)
    }

    @Test("statuses and errors that are not retryable are returned at once")
    func notRetryable() async throws {
        let transport = ScriptedTransport([404])
        await #expect(throws: NALError.self) {
            try await Client<TestEndpoint>(middleware: [Self.fast], transport: transport).request(TestEndpoint())
        }
        #expect(transport.requests.count == 1)
        #expect(Self.fast.retryReason(.failure(.invalidRequest(.missingURL))) == nil)
        #expect(Self.fast.retryReason(.failure(.transport(URLError(.networkConnectionLost)))) != nil)
        #expect(Self.fast.retryReason(.failure(.transport(URLError(.badURL)))) == nil)
        #expect(
            Self.fast.retryReason(.failure(.timedOut(TimeoutFailure(limit: .idle, seconds: 1, url: nil)))) != nil)
        #expect(
            Self.fast.retryReason(.failure(.timedOut(TimeoutFailure(limit: .total, seconds: 1, url: nil)))) == nil)
    }

    @Test("Retry-After: 1 waits about a second")
    func retryAfterSeconds() async throws {
        let transport = ScriptedTransport([503, 200], headers: ["Retry-After": "1"])
        let clock = ContinuousClock()
        let start = clock.now
        _ = try await Client<TestEndpoint>(middleware: [Self.fast], transport: transport).request(TestEndpoint())
        let elapsed = clock.now - start
        #expect(elapsed >= .milliseconds(950) && elapsed < Timing.bound(.seconds(1)), "took \(elapsed)")
    }

    @Test(
        "a Retry-After longer than the cap returns the response at once; a wait past the total timeout is not started")
    func retryAfterCapAndDeadline() async throws {
        var capped = Self.fast
        capped.maximumRetryAfter = .milliseconds(200)
        let transport = ScriptedTransport([503, 200], headers: ["Retry-After": "3600"])
        let clock = ContinuousClock()
        let start = clock.now
        do {
            _ = try await Client<TestEndpoint>(middleware: [capped], transport: transport).request(TestEndpoint())
            Issue.record("the server asked for an hour and was retried sooner")
        } catch {
            #expect(error.response?.statusCode == 503, "the server's answer, not an early retry: \(error)")
        }
        // Retrying at the cap would send a second request; waiting would take an hour.
        #expect(transport.requests.count == 1)
        #expect(clock.now - start < Timing.bound(.milliseconds(200)))

        let withinDeadline = ScriptedTransport([503, 200], headers: ["Retry-After": "5"])
        do {
            _ = try await Client<TestEndpoint>(middleware: [Self.fast], transport: withinDeadline).request(
                TestEndpoint(totalTimeout: 2))
            Issue.record("the 503 passed")
        } catch {
            #expect(error.response?.statusCode == 503, "the last response, not a timeout: \(error)")
        }
        #expect(withinDeadline.requests.count == 1)
    }

    @Test("cancelling during the backoff ends the call at once, not after the 30 s Retry-After")
    func cancelDuringBackoff() async throws {
        let transport = ScriptedTransport([503], headers: ["Retry-After": "30"])
        let client = Client<TestEndpoint>(middleware: [Self.fast], transport: transport)
        let clock = ContinuousClock()
        let task = Task { () async -> (NALError?, ContinuousClock.Instant) in
            do throws(NALError) {
                _ = try await client.request(TestEndpoint())
                return (nil, clock.now)
            } catch {
                return (error, clock.now)
            }
        }
        while transport.requests.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(50))
        let cancelledAt = clock.now
        task.cancel()
        let (error, endedAt) = await task.value
        guard case .cancelled? = error else {
            Issue.record("expected cancelled, got \(String(describing: error))")
            return
        }
        // Typically under 5 ms; the bound is far below the 30 s wait.
        #expect(endedAt - cancelledAt < Timing.bound(.zero), "took \(endedAt - cancelledAt)")
    }

    @Test("full jitter stays between 0 and the exponential step, capped")
    func jitter() {
        let retry = RetryMiddleware(baseDelay: .milliseconds(100), maximumDelay: .milliseconds(350))
        for _ in 0..<200 {
            #expect(retry.backoff(before: 2) <= .milliseconds(100))
            #expect(retry.backoff(before: 3) <= .milliseconds(200))
            #expect(retry.backoff(before: 5) <= .milliseconds(350))
        }
        let samples = (0..<200).map { _ in retry.backoff(before: 3) }
        #expect(Set(samples).count > 100, "delays are random")
    }

    @Test("HTTP dates in Retry-After: IMF-fixdate, RFC 850 and asctime; nonsense is ignored")
    func httpDates() throws {
        let expected = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryAfter.httpDate("Sun, 06 Nov 1994 08:49:37 GMT") == expected)
        #expect(RetryAfter.httpDate("Sunday, 06-Nov-94 08:49:37 GMT") == expected)
        #expect(RetryAfter.httpDate("Sun Nov  6 08:49:37 1994") == expected)
        #expect(RetryAfter.httpDate("soon") == nil)
        #expect(RetryAfter.httpDate("Sun, 32 Nov 1994 08:49:37 GMT") == nil)
        // Days outside 1...31 and times outside the clock are refused, not rolled over into another date.
        for text in [
            "Sun, 00 Nov 1994 08:49:37 GMT", "Sunday, 45-Nov-94 08:49:37 GMT", "Sun, 06 Nov 1994 24:49:37 GMT",
            "Sun, 06 Nov 1994 08:60:37 GMT", "Sun, 06 Nov 1994 08:49:61 GMT",
        ] {
            #expect(RetryAfter.httpDate(text) == nil, "\(text)")
        }
    }

    @Test(
        "fault server: 503, 503, 200 over the wire in three attempts",
        .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
    func overTheWire() async throws {
        let url = try #require(FaultServer.url)
        let key = UUID().uuidString
        let endpoint = TestEndpoint(
            baseURL: url, path: "flaky",
            requestType: .parameters(["key": .string(key), "failures": 2], encoding: URLEncoding.queryString))
        let response = try await Client<TestEndpoint>(middleware: [Self.fast]).request(endpoint)
        #expect(response.string() == "ok after 2")
        #expect(try await FaultServer.journal(probe: key).count == 3)
    }

    @Test(
        "httpbin: /status/503 is tried three times, then returned", .enabled(if: HTTPBin.url != nil, HTTPBin.skipReason)
    )
    func againstHTTPBin() async throws {
        let url = try #require(HTTPBin.url)
        let attempts = Attempts()
        do {
            _ = try await Client<TestEndpoint>(middleware: [Self.fast, attempts]).request(
                TestEndpoint(baseURL: url, path: "status/503"))
            Issue.record("a 503 passed")
        } catch {
            #expect(error.response?.statusCode == 503)
        }
        #expect(attempts.seen.withLock { $0 } == [1, 2, 3])
    }
}
