import NALCore

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// What a stub server tells the URLSession machinery about one request, through a gate that closes for good when
/// the request ends: after `finish`, `fail` or the protocol's `stopLoading`, nothing more reaches the client
/// (FoundationNetworking traps on it, Linux fact 19).
///
/// Calls made while serving synchronously (inside `startLoading`, on the session's work queue) go to the client at
/// once. Calls from a serving task hop to that work queue, in order: FoundationNetworking requires every
/// `URLProtocolClient` call there (its task registry may only be touched on it; calls from other threads crash
/// under load, Linux fact 24), and `stopLoading` runs there too, so a call queued before a stop is dropped when its
/// turn comes. `drain()` waits for the queued calls, which holds a fast producer back.
///
/// The protocol is held weakly: it holds this output, and URLSession holds it for as long as the request runs.
final class ProtocolOutput: @unchecked Sendable {
    // @unchecked: the flags are only touched while `lock` is held; the client is called outside it, on the work
    // queue (or inline, on the thread that runs `startLoading`), where `stopLoading` runs too.
    private let lock = NSLock()
    private weak var urlProtocol: URLProtocol?
    /// The thread serving inside `startLoading`, whose calls need no hop.
    private var inlineThread: pthread_t?
    /// The session's work queue, looked up on it (inside `startLoading`) before serving goes on in a task: `nil`
    /// until then, `.some(nil)` when it cannot be found. Answers given at once never need it, nor pay for the
    /// reflection.
    private var workQueue: DispatchQueue??
    /// Whether the request still takes calls: cleared by `finish`, `fail` and `close`.
    private var open = true
    /// Whether the protocol was stopped: queued calls are dropped.
    private var stopped = false
    private var deliveredResponse = false
    /// Runs once the finish has reached the client: the stub's `onDelivered`.
    private var onFinished: (@Sendable () -> Void)?

    /// An output for `protocol`; `queue` stands in for the session's work queue (tests), which is otherwise found
    /// on the protocol's task.
    init(protocol: URLProtocol, queue: DispatchQueue? = nil) {
        urlProtocol = `protocol`
        if let queue { workQueue = .some(queue) }
    }

    /// Looks up the session's work queue on the protocol's task. Call it on that queue (inside `startLoading`),
    /// where the task's fields are not changing, before any call comes from another thread.
    func findWorkQueue() {
        let task = locked { workQueue == nil ? urlProtocol?.task : nil }
        guard let task else { return }
        let found = Self.workQueue(of: task)
        if found == nil {
            StubServer.log.error("no work queue found on the URLSession task: stub calls will not hop to it")
        }
        locked { workQueue = .some(found) }
    }

    /// Whether calls from serving tasks hop to the session's work queue: `nil` before `findWorkQueue()`.
    var hopsToWorkQueue: Bool? { locked { workQueue.map { $0 != nil } } }

    /// Runs `body`, the synchronous part of serving, with this thread's calls going to the client directly.
    func servingInline<Value>(_ body: () -> Value) -> Value {
        locked { inlineThread = pthread_self() }
        defer { locked { inlineThread = nil } }
        return body()
    }

    /// Whether the request has not ended yet.
    var isOpen: Bool { locked { open } }

    /// Whether a response reached the client.
    var hasResponse: Bool { locked { deliveredResponse } }

    /// Sets what runs once the finish of this request has reached the client, and only then (on URLSession's work
    /// queue, so it must not block).
    func whenFinished(_ body: @escaping @Sendable () -> Void) {
        locked { onFinished = body }
    }

    func receive(_ response: HTTPURLResponse) {
        perform { client, urlProtocol in
            client.urlProtocol(urlProtocol, didReceive: response, cacheStoragePolicy: .notAllowed)
        } delivered: { output in
            output.deliveredResponse = true
            return nil
        }
    }

    func load(_ data: Data) {
        perform { client, urlProtocol in client.urlProtocol(urlProtocol, didLoad: data) }
    }

    func finish() {
        perform(closing: true) { client, urlProtocol in
            client.urlProtocolDidFinishLoading(urlProtocol)
        } delivered: { output in
            let onFinished = output.onFinished
            output.onFinished = nil
            return onFinished
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
            onFinished = nil
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
        return workQueue ?? nil
    }

    /// The session's work queue, found by reflection on the task: a URLProtocol has no public handle to it. `nil`
    /// where it cannot be found (another Foundation), and the client is then called directly. Read inside
    /// `startLoading`, on that queue, where the task's fields are not changing.
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

    /// Queues `call` unless the gate is closed; `delivered` runs under the lock once the call is about to reach
    /// the client, and what it returns runs after the call.
    private func perform(
        closing: Bool = false, _ call: @escaping @Sendable (any URLProtocolClient, URLProtocol) -> Void,
        delivered: (@Sendable (ProtocolOutput) -> (@Sendable () -> Void)?)? = nil
    ) {
        let (accepted, queue) = locked { () -> (Bool, DispatchQueue?) in
            guard open else { return (false, nil) }
            if closing { open = false }
            return (true, hopQueue())
        }
        guard accepted else { return }
        guard let queue else { return deliver(call, delivered) }
        queue.async { self.deliver(call, delivered) }
    }

    /// Calls the client outside the lock: a client call may stop the protocol on this thread, and a slow one
    /// (NAL's session holding a producer back) must not keep `isOpen` and the serving tasks waiting.
    private func deliver(
        _ call: (any URLProtocolClient, URLProtocol) -> Void,
        _ delivered: ((ProtocolOutput) -> (@Sendable () -> Void)?)?
    ) {
        let (target, after) = locked { () -> ((any URLProtocolClient, URLProtocol)?, (@Sendable () -> Void)?) in
            guard !stopped, let urlProtocol, let client = urlProtocol.client else { return (nil, nil) }
            // A task being cancelled gets its cancellation error from URLSession, which may already have removed it
            // from its registry by the time a queued call of ours runs: any call then crashes the process (Linux
            // fact 25). `cancel()` sets the state on this same queue, so it is either set here or comes after.
            if let state = urlProtocol.task?.state, state == .canceling || state == .completed {
                stopped = true
                return (nil, nil)
            }
            return ((client, urlProtocol), delivered?(self))
        }
        guard let (client, urlProtocol) = target else { return }
        call(client, urlProtocol)
        after?()
    }
}
