import Foundation
import NALCore
import NALLogging
import NALStubbing
import NALTestSupport
import Testing

@Suite("Client(stubbing:) forwards every setting")
struct ClientStubbingSettingsTests {
    /// Calls the stub five times at once with the same POST and returns how many answers the stub made.
    static func stubAnswers(_ makeClient: (StubBehavior<TestEndpoint>) -> Client<TestEndpoint>) async throws -> Int {
        let answers = Locked(0)
        let client = makeClient(
            .custom { _ in
                answers.withLock { $0 += 1 }
                return StubResponse.string("once").delayed(by: .milliseconds(300))
            })
        let endpoint = TestEndpoint(path: "same", method: .post, requestType: .data(Data("x".utf8)))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<5 { group.addTask { _ = try await client.request(endpoint) } }
            try await group.waitForAll()
        }
        return answers.withLock { $0 }
    }

    @Test("deduplicatedMethods reaches the client: five identical POSTs share one answer when POST is named")
    func deduplicatedMethods() async throws {
        let named = try await Self.stubAnswers {
            Client(stubbing: $0, deduplicatesRequests: true, deduplicatedMethods: [.post])
        }
        let byDefault = try await Self.stubAnswers { Client(stubbing: $0, deduplicatesRequests: true) }
        #expect(named == 1)
        #expect(byDefault == 5)
    }

    @Test("Client(stubbing:settings:) keeps every setting it is given")
    func settings() async throws {
        let queue = DispatchQueue(label: "callbacks")
        let settings = Client<TestEndpoint>.Settings(
            endpointMapping: { Endpoint($0) }, willSend: { request, _ in request }, deduplicatesRequests: true,
            deduplicatedMethods: [.post], callbackQueue: queue)
        let client = Client(stubbing: .immediate, settings: settings)
        #expect(client.settings.deduplicatedMethods == [.post])
        #expect(client.settings.deduplicatesRequests)
        #expect(client.settings.endpointMapping != nil)
        #expect(client.settings.willSend != nil)
        #expect(client.callbackQueue === queue)
        #expect(try await Self.stubAnswers { Client(stubbing: $0, settings: settings) } == 1)
    }
}
