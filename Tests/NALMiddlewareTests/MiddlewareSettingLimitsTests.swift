import Foundation
import NALCore
import NALLogging
import NALTestSupport
import Testing

@testable import NALMiddleware

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Bad settings of the built-in middleware are clamped, with one warning")
struct MiddlewareSettingLimitsTests {
    @Test("RetryMiddleware: maxAttempts below 1 is 1, negative delays are 0, delays past a day are a day")
    func retry() async throws {
        let (retry, warnings) = try await LogCapture.settingWarnings {
            RetryMiddleware(
                maxAttempts: -5_201, baseDelay: .milliseconds(-5_202), maximumDelay: .seconds(5_203_000),
                maximumRetryAfter: .milliseconds(-5_204))
        }
        #expect(retry.maxAttempts == 1)
        #expect(retry.baseDelay == .zero)
        #expect(retry.maximumDelay == .seconds(86_400))
        #expect(retry.maximumRetryAfter == .zero)
        #expect(warnings.filter { $0.contains("-5201") } == ["RetryMiddleware maxAttempts -5201 is below 1; using 1"])
        #expect(
            warnings.filter { $0.contains("-5.202") }
                == ["RetryMiddleware baseDelay -5.202 seconds is below 0.0 seconds; using 0.0 seconds"])
        #expect(
            warnings.filter { $0.contains("5203000") }
                == ["RetryMiddleware maximumDelay 5203000.0 seconds is above 86400.0 seconds; using 86400.0 seconds"])
        #expect(
            warnings.filter { $0.contains("-5.204") }
                == ["RetryMiddleware maximumRetryAfter -5.204 seconds is below 0.0 seconds; using 0.0 seconds"])
    }

    @Test("RetryMiddleware: good settings log nothing")
    func retryQuiet() async throws {
        let (retry, warnings) = try await LogCapture.settingWarnings {
            RetryMiddleware(maxAttempts: 5_205, baseDelay: .milliseconds(5_206))
        }
        #expect(retry.maxAttempts == 5_205)
        #expect(!warnings.contains { $0.contains("5205") || $0.contains("5.206") })
    }

    @Test("AccessTokenMiddleware: a negative refreshCooldown is 0")
    func accessToken() async throws {
        let (auth, warnings) = try await LogCapture.settingWarnings {
            AccessTokenMiddleware(token: { _ in "t" }, refresh: {}, refreshCooldown: .milliseconds(-5_211))
        }
        #expect(auth.refresher?.cooldown == .zero)
        #expect(
            warnings.filter { $0.contains("-5.211") }
                == ["AccessTokenMiddleware refreshCooldown -5.211 seconds is below 0.0 seconds; using 0.0 seconds"])
    }

    @Test("LoggingMiddleware: a negative maximumBodyBytes is 0")
    func logging() async throws {
        let (logging, warnings) = try await LogCapture.settingWarnings {
            LoggingMiddleware(maximumBodyBytes: -5_221)
        }
        #expect(logging.maximumBodyBytes == 0)
        #expect(
            warnings.filter { $0.contains("-5221") } == ["LoggingMiddleware maximumBodyBytes -5221 is below 0; using 0"]
        )
    }

    @Test("a context whose attempt is Int.max is retried and replayed without overflowing")
    func hugeAttempt() async throws {
        let request = URLRequest(url: try #require(URL(string: "https://api.example.com/x")))
        let retried = ScriptedTransport([503, 200])
        let retry = RetryMiddleware(baseDelay: .zero)
        let context = TransportContext(endpoint: TestEndpoint(), attempt: .max)
        _ = try await retry.intercept(request, context: context) { try await retried.send($0, context: $1) }
        #expect(retried.contexts.map(\.attempt) == [.max, .max])

        let replayed = ScriptedTransport([401, 200])
        let auth = AccessTokenMiddleware(token: { _ in "t" }, refresh: {})
        let authorized = TransportContext(endpoint: AuthorizedEndpoint(), attempt: .max)
        _ = try await auth.intercept(request, context: authorized) { try await replayed.send($0, context: $1) }
        #expect(replayed.contexts.map(\.attempt) == [.max, .max])
    }

    @Test("settings set after init to hostile values never trap or sleep a negative time")
    func hostileVars() async throws {
        var retry = RetryMiddleware()
        retry.maxAttempts = .min
        retry.baseDelay = Duration(secondsComponent: .min, attosecondsComponent: 0)
        retry.maximumDelay = Duration(secondsComponent: .max, attosecondsComponent: 999_999_999_999_999_999)
        retry.maximumRetryAfter = Duration(secondsComponent: .min, attosecondsComponent: 0)
        for attempt in [Int.min, 0, 2, .max] { #expect(retry.backoff(before: attempt) == .zero) }
        let transport = ScriptedTransport([503])
        let request = URLRequest(url: try #require(URL(string: "https://api.example.com/x")))
        let response = try await retry.intercept(request, context: TransportContext(endpoint: TestEndpoint())) {
            try await transport.send($0, context: $1)
        }
        #expect(response.statusCode == 503)
        var logging = LoggingMiddleware(options: [.bodies], maximumBodyBytes: 1)
        logging.maximumBodyBytes = .min
        let body = MemoryTransport(body: Data("{\"a\":1}".utf8))
        _ = try await Client<TestEndpoint>(middleware: [logging], transport: body).request(TestEndpoint())
    }
}
