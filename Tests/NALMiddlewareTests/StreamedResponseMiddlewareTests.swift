import Foundation
import NALCore
import NALMiddleware
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A streamed response that a middleware keeps without returning it must not keep its connection open.
@Suite("Middleware on streamed calls: discarded bodies are closed")
struct StreamedResponseMiddlewareTests {
    /// A body that would go on for 50 s: it ends early only if something stops it.
    static func endless(status: Int, headers: [String: String] = [:]) -> ScriptedStreamTransport {
        ScriptedStreamTransport(
            status: status, headers: headers.merging(["Content-Type": "text/plain"]) { first, _ in first },
            chunks: (0..<1000).map { Data("chunk \($0)\n".utf8) }, interval: .milliseconds(50))
    }

    @Test("retry: the 503 it discards is closed before the wait, not after")
    func retryClosesDiscardedAttempt() async throws {
        let transport = Self.endless(status: 503, headers: ["Retry-After": "2"])
        let retry = RetryMiddleware(maxAttempts: 2, maximumRetryAfter: .seconds(5))
        let client = Client<TestEndpoint>(middleware: [retry], transport: transport)
        let call = Task { try await client.stream(TestEndpoint()) }
        try await Task.sleep(for: .milliseconds(500))
        // Half a second into a two-second wait: one attempt made, and its body already stopped.
        #expect(transport.calls == 1)
        #expect(transport.cancelled)
        call.cancel()
        _ = try? await call.value
    }

    @Test("access token: a 401 kept in tokenRefreshFailed holds the start of its body and is closed")
    func refreshFailureClosesTrigger() async throws {
        struct RefreshDenied: Error {}
        let transport = Self.endless(status: 401)
        let auth = AccessTokenMiddleware(token: { _ in "stale" }, refresh: { throw RefreshDenied() })
        let client = Client<AuthorizedEndpoint>(middleware: [auth], transport: transport)
        do {
            _ = try await client.stream(AuthorizedEndpoint())
            Issue.record("a 401 whose refresh failed was streamed")
        } catch {
            guard case .tokenRefreshFailed(_, let response?) = error else {
                Issue.record("expected tokenRefreshFailed with the 401, got \(error)")
                return
            }
            #expect(response.statusCode == 401)
            #expect(response.streamedBody == nil)
            #expect(response.string()?.hasPrefix("chunk 0\n") == true)
            // The error is still held here, and the connection is closed anyway.
            #expect(transport.cancelled)
        }
    }
}
