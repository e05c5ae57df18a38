import Foundation
import NALCore
import NALMiddleware
import NALTestSupport
import Testing

@Suite("Client(middleware:) forwards every setting")
struct ClientMiddlewareSettingsTests {
    /// Sends the same POST five times at once through an empty chain and returns how many reached the transport.
    static func transportCalls(_ makeClient: (MemoryTransport) -> Client<TestEndpoint>) async throws -> Int {
        let transport = MemoryTransport(body: Data("once".utf8), delay: .milliseconds(300))
        let client = makeClient(transport)
        let endpoint = TestEndpoint(path: "same", method: .post, requestType: .data(Data("x".utf8)))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<5 { group.addTask { _ = try await client.request(endpoint) } }
            try await group.waitForAll()
        }
        return transport.requests.count
    }

    @Test("deduplicatedMethods reaches the client: five identical POSTs make one call when POST is named")
    func deduplicatedMethods() async throws {
        let named = try await Self.transportCalls {
            Client(middleware: [], transport: $0, deduplicatesRequests: true, deduplicatedMethods: [.post])
        }
        let byDefault = try await Self.transportCalls {
            Client(middleware: [], transport: $0, deduplicatesRequests: true)
        }
        #expect(named == 1)
        #expect(byDefault == 5)
    }

    @Test("Client(middleware:transport:settings:) keeps every setting it is given")
    func settings() async throws {
        let queue = DispatchQueue(label: "callbacks")
        let settings = Client<TestEndpoint>.Settings(
            willSend: { request, _ in request }, deduplicatesRequests: true, deduplicatedMethods: [.post],
            callbackQueue: queue)
        let calls = try await Self.transportCalls { Client(middleware: [], transport: $0, settings: settings) }
        #expect(calls == 1)
        let client = Client(middleware: [], transport: MemoryTransport(), settings: settings)
        #expect(client.settings.willSend != nil)
        #expect(client.callbackQueue === queue)
        #expect(client.transport is MiddlewareChain)
    }
}
