import NALCore
import NALLogging

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// The URLProtocol of one stub server slot (see `ProtocolSlot`), which hands every request to its server.
final class StubProtocol<Slot: StubSlot>: URLProtocol, StubSessionProtocol {
    private struct Serving {
        var task: Task<Void, Never>?
        var output: ProtocolOutput?
        var stopped = false
    }

    // Foundation makes URLProtocol non-Sendable; the serving task captures only the `ProtocolOutput` wrapper.
    private let serving = Locked(Serving())

    #if DEBUG
        /// Protocols alive per slot, and outputs made without a work queue: tests check that nothing leaks and that
        /// calls hop where FoundationNetworking needs them.
        static var census: StubProtocolCensus { .shared }

        required init(request: URLRequest, cachedResponse: CachedURLResponse?, client: (any URLProtocolClient)?) {
            super.init(request: request, cachedResponse: cachedResponse, client: client)
            StubProtocolCensus.shared.counts.withLock { $0.alive[Slot.index, default: 0] += 1 }
        }

        deinit {
            StubProtocolCensus.shared.counts.withLock { $0.alive[Slot.index, default: 0] -= 1 }
        }
    #endif

    /// Every request of a session made from a server's configuration, even after the server is gone: those then
    /// fail, rather than reach the network. A released slot that was installed globally claims nothing.
    override class func canInit(with request: URLRequest) -> Bool {
        ProtocolSlot.claimsRequests(Slot.index)
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    override func startLoading() {
        let output = ProtocolOutput(protocol: self)
        serving.withLock { $0.output = output }

        guard let (server, configuration) = ProtocolSlot.server(at: Slot.index) else {
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
        let task = output.servingInline { server.serve(request, configuration: configuration, to: output) }
        #if DEBUG
            if task != nil, output.hopsToWorkQueue != true {
                StubProtocolCensus.shared.counts.withLock { $0.withoutWorkQueue[Slot.index, default: 0] += 1 }
            }
        #endif
        let stoppedMeanwhile = serving.withLock { serving in
            serving.task = task
            return serving.stopped
        }
        if stoppedMeanwhile { task?.cancel() }
    }

    /// Nothing reaches the client after this returns (FoundationNetworking traps on it, Linux fact 19): the output
    /// closes under its lock, and the serving task, its timers and waits are cancelled.
    override func stopLoading() {
        let (task, output) = serving.withLock { serving in
            serving.stopped = true
            return (serving.task, serving.output)
        }
        output?.close()
        task?.cancel()
    }
}

#if DEBUG
    /// What tests count about stub protocols, per slot.
    final class StubProtocolCensus: Sendable {
        static let shared = StubProtocolCensus()
        let counts = Locked((alive: [Int: Int](), withoutWorkQueue: [Int: Int]()))
    }
#endif
