import Foundation
import NALCore
import NALLogging
import NALMiddleware
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Moya's `MultiTarget`: one `Client<Endpoint>` calls targets of several service types, each wrapped in `Endpoint`,
/// and middleware still sees each call's own target.
@Suite("One client for several service types")
struct MultiTargetTests {
    @Test("AccessTokenMiddleware and NetworkActivityMiddleware see the wrapped target, not Endpoint")
    func middlewareSeesTheTarget() async throws {
        let transport = MemoryTransport()
        let tokensAskedFor = Locked<[String]>([])
        let activity = Locked<[String]>([])
        let client = Client<Endpoint>(
            middleware: [
                NetworkActivityMiddleware { change, target in
                    activity.withLock { $0.append("\(change) \(type(of: target))") }
                },
                AccessTokenMiddleware(token: { target in
                    tokensAskedFor.withLock { $0.append("\(type(of: target))") }
                    return "t0k"
                }),
            ],
            transport: transport)
        _ = try await client.request(Endpoint(AuthorizedEndpoint(accessTokenType: .bearer)))
        _ = try await client.request(Endpoint(TestEndpoint(path: "public")))
        #expect(transport.requests.map { $0.value(forHTTPHeaderField: "Authorization") } == ["Bearer t0k", nil])
        #expect(tokensAskedFor.withLock { $0 } == ["AuthorizedEndpoint"])
        #expect(
            activity.withLock { $0 } == [
                "began AuthorizedEndpoint", "ended AuthorizedEndpoint", "began TestEndpoint", "ended TestEndpoint",
            ])
    }

    @Test("LoggingMiddleware names the wrapped target in its entries, not Endpoint")
    func loggingNamesTheTarget() async throws {
        let named = Locked<[String]>([])
        let logging = LoggingMiddleware(options: []) { entry in
            named.withLock { $0.append(entry.target) }
            return nil
        }
        let client = Client<Endpoint>(middleware: [logging], transport: MemoryTransport())
        try await LogCapture.capture("dev.nal=notice,*=off") { _ in
            _ = try await client.request(Endpoint(TestEndpoint(path: "wrapped")))
            _ = try await client.request("https://api.example.com/one-off")
        }
        #expect(named.withLock { $0 } == ["TestEndpoint", "TestEndpoint", "Endpoint", "Endpoint"])
    }
}
