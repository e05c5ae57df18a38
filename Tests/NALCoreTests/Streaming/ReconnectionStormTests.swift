import Foundation
import NALCore
import Testing

@Suite("Client.serverSentEvents: a server cannot make the client reconnect in a tight loop")
struct ReconnectionStormTests {
    @Test(
        "retry: 0 and one event per connection: at most one reconnection per 100 ms, whatever the policy says",
        arguments: [
            ReconnectionPolicy.default, ReconnectionPolicy(initialDelay: .zero, minimumDelay: .zero),
            ReconnectionPolicy(initialDelay: .zero, maximumDelay: .zero, minimumDelay: .milliseconds(-5)),
        ])
    func retryZeroAfterEvents(policy: ReconnectionPolicy) async throws {
        // Each connection delivers an event and ends, so the backoff starts afresh every time.
        let transport = ScriptedStreamTransport(chunks: [Data("retry: 0\ndata: tick\n\n".utf8)])
        let client = Client<TestEndpoint>(transport: transport)
        let clock = ContinuousClock()
        let start = clock.now
        var events = 0
        for try await event in client.serverSentEvents(TestEndpoint(), reconnect: policy) {
            #expect(event.data == "tick")
            events += 1
            // At least two events, however long a loaded machine takes to deliver them.
            if events >= 2, clock.now - start >= .seconds(1) { break }
        }
        // Without a floor this loop reconnects thousands of times a second. With it, at most one connection per
        // 100 ms of the time that actually passed, plus the first: a stalled machine makes fewer, never more.
        let elapsed = clock.now - start
        #expect(events >= 2)
        #expect(transport.calls <= Int((elapsed / .milliseconds(100)).rounded(.down)) + 2)
    }
}
