import NALCore
import NALLogging

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// The URLProtocol of one stub server's sessions: a class per server (see `ProtocolSlot`), which hands every request
/// to its server.
final class StubProtocol<Slot: StubSlot>: URLProtocol, NALStubbingProtocol {
    private struct Serving {
        var task: Task<Void, Never>?
        var stopped = false
    }

    // Foundation makes URLProtocol non-Sendable; the serving task captures only the `ProtocolOutput` wrapper.
    private let serving = Locked(Serving())

    /// Every request of a session made from a server's configuration, even after the server is gone: those then
    /// fail, rather than reach the network.
    override class func canInit(with request: URLRequest) -> Bool {
        ProtocolSlot.isAssigned(Slot.index)
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    override func startLoading() {
        let output = ProtocolOutput(protocol: self)
        guard let server = ProtocolSlot.server(at: Slot.index) else {
            output.fail(
                URLError(
                    .resourceUnavailable,
                    userInfo: [
                        NSLocalizedDescriptionKey:
                            "the StubServer of this session was released; keep a reference to it while its sessions run"
                    ]))
            return
        }
        // Outside the lock: serving may call back into URLSession, which may stop this protocol on the same thread.
        let task = server.serve(request, to: output)
        let stoppedMeanwhile = serving.withLock { serving in
            serving.task = task
            return serving.stopped
        }
        if stoppedMeanwhile { task?.cancel() }
    }

    override func stopLoading() {
        serving.withLock { serving in
            serving.stopped = true
            return serving.task
        }?.cancel()
    }
}

/// What a stub server tells the URLSession machinery about one request.
struct ProtocolOutput: @unchecked Sendable {
    // @unchecked: URLProtocol and its client are used from one serving task at a time, in order.
    let `protocol`: URLProtocol

    func receive(_ response: HTTPURLResponse) {
        `protocol`.client?.urlProtocol(`protocol`, didReceive: response, cacheStoragePolicy: .notAllowed)
    }

    func load(_ data: Data) {
        `protocol`.client?.urlProtocol(`protocol`, didLoad: data)
    }

    func finish() {
        `protocol`.client?.urlProtocolDidFinishLoading(`protocol`)
    }

    func fail(_ error: URLError) {
        `protocol`.client?.urlProtocol(`protocol`, didFailWithError: error)
    }
}
