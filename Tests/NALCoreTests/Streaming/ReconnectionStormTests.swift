import Foundation
import NALCore
import Testing

@Suite("Client.serverSentEvents: a server cannot make the client reconnect in a tight loop")
struct ReconnectionStormTests {
    @Test("retry: 0 and one event per connection: at most one reconnection per 100 ms")
    func retryZeroAfterEvents() async throws {
        // Each connection delivers an event and ends, so the backoff starts afresh every time.
        let transport = ScriptedStreamTransport(chunks: [Data("retry: 0\ndata: tick\n\n".utf8)])
        let client = Client<TestEndpoint>(transport: transport)
        let clock = ContinuousClock()
        let end = clock.now + .seconds(1)
        var events = 0
        for try await event in client.serverSentEvents(TestEndpoint(), reconnect: .default) {
            #expect(event.data == "tick")
            events += 1
            if clock.now >= end { break }
        }
        // Without a floor this loop reconnects thousands of times a second; a busy machine only lowers the count.
        #expect(events >= 2)
        #expect(transport.calls <= 12)
    }
}
