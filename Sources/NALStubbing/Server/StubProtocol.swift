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

/// What a stub server tells the URLSession machinery about one request, through a gate that closes for good when
/// the request ends: after `finish`, `fail` or the protocol's `stopLoading`, nothing more reaches the client
/// (FoundationNetworking traps on it, Linux fact 19).
///
/// Calls made while serving synchronously (inside `startLoading`, on the session's work queue) go to the client at
/// once. Calls from a serving task hop to that work queue, in order: FoundationNetworking requires every
/// `URLProtocolClient` call there (its task registry may only be touched on it; calls from other threads crash
/// under load, Linux fact 24), and `stopLoading` runs there too, so a call queued before a stop is dropped when its
/// turn comes. `drain()` waits for the queued calls, which holds a fast producer back.
final class ProtocolOutput: @unchecked Sendable {
    // @unchecked: the URLProtocol and the flags are only touched while `lock` is held.
    private let lock = NSRecursiveLock()
    private let urlProtocol: URLProtocol
    /// The thread serving inside `startLoading`, whose calls need no hop.
    private var inlineThread: pthread_t?
    /// The session's work queue, once looked up; `.some(nil)` when it cannot be found.
    private var workQueue: DispatchQueue??
    /// Whether the request still takes calls: cleared by `finish`, `fail` and `close`.
    private var open = true
    /// Whether the protocol was stopped: queued calls are dropped.
    private var stopped = false
    private var receivedResponse = false
    private var finishedNormally = false

    /// An output for `protocol`; `queue` stands in for the session's work queue (tests), which is otherwise found
    /// on the protocol's task.
    init(protocol: URLProtocol, queue: DispatchQueue? = nil) {
        urlProtocol = `protocol`
        if let queue { workQueue = .some(queue) }
    }

    /// Runs `body`, the synchronous part of serving, with this thread's calls going to the client directly.
    func servingInline<Value>(_ body: () -> Value) -> Value {
        locked { inlineThread = pthread_self() }
        defer { locked { inlineThread = nil } }
        return body()
    }

    /// Whether the request has not ended yet.
    var isOpen: Bool { locked { open } }

    /// Whether a response was handed over.
    var hasResponse: Bool { locked { receivedResponse } }

    /// Whether the request ended with its response delivered whole.
    var didFinish: Bool { locked { finishedNormally } }

    func receive(_ response: HTTPURLResponse) {
        perform(marking: { $0.receivedResponse = true }) { client, urlProtocol in
            client.urlProtocol(urlProtocol, didReceive: response, cacheStoragePolicy: .notAllowed)
        }
    }

    func load(_ data: Data) {
        perform { client, urlProtocol in client.urlProtocol(urlProtocol, didLoad: data) }
    }

    func finish() {
        perform(closing: true, marking: { $0.finishedNormally = true }) { client, urlProtocol in
            client.urlProtocolDidFinishLoading(urlProtocol)
        }
    }

    func fail(_ error: any Error) {
        perform(closing: true) { client, urlProtocol in client.urlProtocol(urlProtocol, didFailWithError: error) }
    }

    /// Closes the gate without telling the client anything: the protocol was stopped.
    func close() {
        locked {
            open = false
            stopped = true
        }
    }

    /// Waits until the calls queued so far have reached the client (or been dropped).
    func drain() async {
        guard let queue = locked({ hopQueue() }) else { return }
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    }

    /// The queue calls from this thread hop to, or `nil` to call directly. Called under the lock.
    private func hopQueue() -> DispatchQueue? {
        if let inlineThread, pthread_equal(inlineThread, pthread_self()) != 0 { return nil }
        if let workQueue { return workQueue }
        let found = Self.workQueue(of: urlProtocol.task)
        workQueue = .some(found)
        return found
    }

    /// The session's work queue, found by reflection on the task: a URLProtocol has no public handle to it. `nil`
    /// where it cannot be found (another Foundation), and the client is then called directly.
    private static func workQueue(of task: URLSessionTask?) -> DispatchQueue? {
        #if canImport(FoundationNetworking)
            var mirror = task.map { Mirror(reflecting: $0) }
            while let current = mirror {
                if let queue = current.children.first(where: { $0.label == "workQueue" })?.value as? DispatchQueue {
                    return queue
                }
                mirror = current.superclassMirror
            }
        #endif
        return nil
    }

    private func locked<Value>(_ body: () -> Value) -> Value {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    private func perform(
        closing: Bool = false, marking mark: ((ProtocolOutput) -> Void)? = nil,
        _ call: @escaping @Sendable (any URLProtocolClient, URLProtocol) -> Void
    ) {
        let (accepted, queue) = locked { () -> (Bool, DispatchQueue?) in
            guard open else { return (false, nil) }
            if closing { open = false }
            mark?(self)
            return (true, hopQueue())
        }
        guard accepted else { return }
        guard let queue else { return deliver(call) }
        queue.async { self.deliver(call) }
    }

    private func deliver(_ call: (any URLProtocolClient, URLProtocol) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped, let client = urlProtocol.client else { return }
        call(client, urlProtocol)
    }
}
