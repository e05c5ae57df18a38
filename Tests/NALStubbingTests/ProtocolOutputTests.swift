import Foundation
import Testing

@testable import NALStubbing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A URLProtocol client that records what reaches it.
final class RecordingClient: NSObject, URLProtocolClient, @unchecked Sendable {
    // @unchecked: `events` is only touched on the queue that delivers calls, then read after it drained.
    var events: [String] = []

    func urlProtocol(_ protocol: URLProtocol, wasRedirectedTo request: URLRequest, redirectResponse: URLResponse) {
        events.append("redirect")
    }
    func urlProtocol(_ protocol: URLProtocol, cachedResponseIsValid cachedResponse: CachedURLResponse) {}
    func urlProtocol(
        _ protocol: URLProtocol, didReceive response: URLResponse, cacheStoragePolicy policy: URLCache.StoragePolicy
    ) { events.append("response") }
    func urlProtocol(_ protocol: URLProtocol, didLoad data: Data) { events.append("data \(data.count)") }
    func urlProtocolDidFinishLoading(_ protocol: URLProtocol) { events.append("finish") }
    func urlProtocol(_ protocol: URLProtocol, didFailWithError error: any Error) { events.append("fail") }
    func urlProtocol(_ protocol: URLProtocol, didReceive challenge: URLAuthenticationChallenge) {}
    func urlProtocol(_ protocol: URLProtocol, didCancel challenge: URLAuthenticationChallenge) {}
}

@Suite("The gate between a stub and its URLProtocol client")
struct ProtocolOutputTests {
    func output(queue: DispatchQueue) throws -> (ProtocolOutput, RecordingClient) {
        let client = RecordingClient()
        let request = URLRequest(url: try #require(URL(string: "https://api.example.com/x")))
        let urlProtocol = URLProtocol(request: request, cachedResponse: nil, client: client)
        return (ProtocolOutput(protocol: urlProtocol, queue: queue), client)
    }

    @Test("calls queued before stopLoading are dropped when their turn comes; nothing follows finish or fail")
    func gate() async throws {
        let queue = DispatchQueue(label: "test.work-queue")
        let (output, client) = try output(queue: queue)
        queue.suspend()
        output.load(Data(count: 3))
        output.close()
        output.load(Data(count: 4))
        queue.resume()
        await output.drain()
        #expect(client.events.isEmpty, "\(client.events)")

        let (finished, second) = try self.output(queue: queue)
        let url = try #require(URL(string: "https://api.example.com/x"))
        let response = try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: nil))
        finished.receive(response)
        finished.load(Data(count: 2))
        finished.finish()
        finished.fail(URLError(.timedOut))
        finished.load(Data(count: 5))
        await finished.drain()
        #expect(second.events == ["response", "data 2", "finish"])
        #expect(finished.didFinish && !finished.isOpen)
    }
}
