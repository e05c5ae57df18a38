import Foundation
import NALLogging
import Testing

@testable import NALStubbing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A URLProtocol client that records what reaches it.
final class RecordingClient: NSObject, URLProtocolClient, Sendable {
    // Behind a lock, though calls arrive on one queue and are read after it drained: ThreadSanitizer cannot see the
    // order that a continuation resumed from a dispatch queue gives, and would report a race that is not there.
    private let recorded = Locked<[String]>([])
    var events: [String] { recorded.withLock { $0 } }

    private func record(_ event: String) { recorded.withLock { $0.append(event) } }

    func urlProtocol(_ protocol: URLProtocol, wasRedirectedTo request: URLRequest, redirectResponse: URLResponse) {
        record("redirect")
    }
    func urlProtocol(_ protocol: URLProtocol, cachedResponseIsValid cachedResponse: CachedURLResponse) {}
    func urlProtocol(
        _ protocol: URLProtocol, didReceive response: URLResponse, cacheStoragePolicy policy: URLCache.StoragePolicy
    ) { record("response") }
    func urlProtocol(_ protocol: URLProtocol, didLoad data: Data) { record("data \(data.count)") }
    func urlProtocolDidFinishLoading(_ protocol: URLProtocol) { record("finish") }
    func urlProtocol(_ protocol: URLProtocol, didFailWithError error: any Error) { record("fail") }
    func urlProtocol(_ protocol: URLProtocol, didReceive challenge: URLAuthenticationChallenge) {}
    func urlProtocol(_ protocol: URLProtocol, didCancel challenge: URLAuthenticationChallenge) {}
}

@Suite("The gate between a stub and its URLProtocol client")
struct ProtocolOutputTests {
    /// An output, its client, and its protocol, which the caller keeps alive (the output holds it weakly).
    func output(queue: DispatchQueue) throws -> (ProtocolOutput, RecordingClient, URLProtocol) {
        let client = RecordingClient()
        let request = URLRequest(url: try #require(URL(string: "https://api.example.com/x")))
        let urlProtocol = URLProtocol(request: request, cachedResponse: nil, client: client)
        return (ProtocolOutput(protocol: urlProtocol, queue: queue), client, urlProtocol)
    }

    @Test("calls queued before stopLoading are dropped when their turn comes; nothing follows finish or fail")
    func gate() async throws {
        let queue = DispatchQueue(label: "test.work-queue")
        let (output, client, kept) = try output(queue: queue)
        queue.suspend()
        output.load(Data(count: 3))
        output.close()
        output.load(Data(count: 4))
        queue.resume()
        await output.drain()
        #expect(client.events.isEmpty, "\(client.events)")
        withExtendedLifetime(kept) {}

        let (finished, second, keptToo) = try self.output(queue: queue)
        let delivered = Locked(0)
        finished.whenFinished { delivered.withLock { $0 += 1 } }
        let url = try #require(URL(string: "https://api.example.com/x"))
        let response = try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: nil))
        finished.receive(response)
        finished.load(Data(count: 2))
        finished.finish()
        finished.fail(URLError(.timedOut))
        finished.load(Data(count: 5))
        await finished.drain()
        #expect(second.events == ["response", "data 2", "finish"])
        #expect(delivered.withLock { $0 } == 1 && finished.hasResponse && !finished.isOpen)
        withExtendedLifetime(keptToo) {}
    }

    @Test("onDelivered's hook runs only when the finish reached the client, not when a stop dropped it")
    func finishDroppedByStop() async throws {
        let queue = DispatchQueue(label: "test.work-queue")
        let (output, client, kept) = try output(queue: queue)
        let delivered = Locked(0)
        output.whenFinished { delivered.withLock { $0 += 1 } }
        queue.suspend()
        output.finish()
        output.close()
        queue.resume()
        await output.drain()
        #expect(client.events.isEmpty && delivered.withLock { $0 } == 0)
        withExtendedLifetime(kept) {}
    }

    @Test("the output does not keep its protocol alive, so a protocol and its output never leak as a pair")
    func weakProtocol() throws {
        let request = URLRequest(url: try #require(URL(string: "https://api.example.com/x")))
        var urlProtocol: URLProtocol? = URLProtocol(request: request, cachedResponse: nil, client: RecordingClient())
        weak let watched = urlProtocol
        let output = try ProtocolOutput(protocol: #require(urlProtocol), queue: DispatchQueue(label: "q"))
        urlProtocol = nil
        #expect(watched == nil)
        output.load(Data(count: 1))  // to nobody, harmlessly
    }

    @Test("a real session: every protocol is released after its request, and each found the session's work queue")
    func census() async throws {
        let server = StubServer()
        server.stub(.path("/now"), response: .string("now"))
        server.stub(.path("/later"), response: StubResponse(body: Data(count: 10_000)).delayed(by: .milliseconds(5)))
        let configuration = server.makeSessionConfiguration()
        let slot = try #require(server.configuredSlotIndices.last)
        let session = URLSession(configuration: configuration)
        for index in 0..<50 {
            let url = try #require(URL(string: "https://api.example.com/" + (index % 2 == 0 ? "now" : "later")))
            var request = URLRequest(url: url)
            request.httpMethod = "POST"
            request.httpBody = Data(count: 10_000)
            _ = try await session.data(for: request)
        }
        session.finishTasksAndInvalidate()
        var alive = Int.max
        for _ in 0..<100 {
            alive = StubProtocolCensus.shared.counts.withLock { $0.alive[slot, default: 0] }
            if alive <= 1 { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(alive <= 1, "\(alive) of 50 protocols are still alive")
        #expect(StubProtocolCensus.shared.counts.withLock { $0.withoutWorkQueue[slot, default: 0] } == 0)
    }
}
