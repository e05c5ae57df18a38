import Foundation
import NALCore
import NALMiddleware
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Whom AccessTokenMiddleware gives a token to when the target is wrapped in `Endpoint` (issue 39's MultiTarget).
@Suite("AccessTokenMiddleware and Endpoint.target")
struct MultiTargetTokenScopeTests {
    static func client(_ transport: MemoryTransport) -> Client<Endpoint> {
        Client<Endpoint>(middleware: [AccessTokenMiddleware(token: { _ in "t0k" })], transport: transport)
    }

    @Test("an Endpoint copied from an authorizable target and pointed at another host gets no token")
    func retargetedEndpointGetsNoToken() async throws {
        let transport = MemoryTransport()
        var elsewhere = Endpoint(AuthorizedEndpoint(accessTokenType: .bearer))
        elsewhere.baseURL = URL(string: "https://attacker.example.net")!
        _ = try await Self.client(transport).request(elsewhere)
        let sent = try #require(transport.requests.first)
        #expect(sent.url?.host == "attacker.example.net")
        // Expected nil: the token belongs to api.example.com's service, not to whatever URL the copy now names.
        #expect(sent.value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test("deep nesting: Endpoint(Endpoint(Endpoint(x))) sees x; a one-off URL sees no authorizable target")
    func nesting() async throws {
        let transport = MemoryTransport()
        let deep = Endpoint(Endpoint(Endpoint(AuthorizedEndpoint(accessTokenType: .bearer))))
        #expect(deep.originalTarget is AuthorizedEndpoint)
        _ = try await Self.client(transport).request(deep)
        _ = try await Self.client(transport).request("https://api.example.com/v1")
        #expect(transport.requests.map { $0.value(forHTTPHeaderField: "Authorization") } == ["Bearer t0k", nil])
    }
}
