import Dispatch
import NALLogging
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The accepting side of a stub listener: takes connections off the listening socket on a Dispatch source, starts a
/// `StubConnection` for each on one of the `ListenerLoop`s, and closes them all when stopped. Accepting is rare next to
/// reading (clients keep their connections), so it stays on Dispatch.
final class ListenerCore: @unchecked Sendable {
    // @unchecked: the accept source is a Dispatch object, safe to call from any thread; the rest is immutable or
    // in `state`.
    private struct State: Sendable {
        var connections: [UInt64: StubConnection] = [:]
        var stopped = false
        /// `stop()` callers waiting for the last connection to close.
        var waiting: [CheckedContinuation<Void, Never>] = []
        /// Whether the listening socket is closed, and who waits for it.
        var socketClosed = false
        var waitingForSocket: [CheckedContinuation<Void, Never>] = []
    }

    let socket: ListeningSocket
    private let queue = DispatchQueue(label: "dev.nal.stub-listener.accept")
    private let acceptSource: any DispatchSourceRead
    private let state = Locked(State())
    private let limits: HTTPRequestParser.Limits
    private let timeouts: ListenerTimeouts
    private let step: @Sendable (ParsedRequest) -> ListenerStep
    /// Where the connections are served, each on one by its id.
    private let loops: [ListenerLoop]

    /// The last connection id given, in the process: the loops that serve every listener know connections by it.
    private static let lastID = Atomic<UInt64>(0)

    /// The most connections open at once: 4,096, or half the process's descriptor limit when that is lower (1,024
    /// is the usual soft limit). More are closed as they come, and the listener goes on serving the others: a
    /// connection flood costs each extra client a closed connection, not the process its descriptors.
    static let mostConnections: Int = {
        var limit = rlimit()
        #if os(Linux)
            let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
            let resource = RLIMIT_NOFILE
        #endif
        // No limit (RLIM_INFINITY) reads as the type's largest value.
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur != rlim_t.max else { return 4096 }
        return max(16, min(4096, Int(clamping: limit.rlim_cur) / 2))
    }()

    init(
        socket: ListeningSocket, loops: [ListenerLoop], limits: HTTPRequestParser.Limits, timeouts: ListenerTimeouts,
        step: @escaping @Sendable (ParsedRequest) -> ListenerStep
    ) {
        self.socket = socket
        self.loops = loops
        self.limits = limits
        self.timeouts = timeouts
        self.step = step
        acceptSource = DispatchSource.makeReadSource(fileDescriptor: socket.descriptor, queue: queue)
    }

    /// Starts accepting.
    func start() {
        acceptSource.setEventHandler { [self] in acceptPending() }
        let descriptor = socket.descriptor
        acceptSource.setCancelHandler { [state] in
            _ = close(descriptor)
            let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.socketClosed = true
                defer { state.waitingForSocket = [] }
                return state.waitingForSocket
            }
            for continuation in waiting { continuation.resume() }
        }
        acceptSource.resume()
    }

    /// How many connections are open.
    var connectionCount: Int { state.withLock { $0.connections.count } }

    /// Stops accepting, closes every connection, and returns once all are closed.
    func stop() async {
        // Cancelling again is harmless; the cancel handler closes the listening socket, and the port is free once
        // it has.
        acceptSource.cancel()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let closed = state.withLock { state in
                if !state.socketClosed { state.waitingForSocket.append(continuation) }
                return state.socketClosed
            }
            if closed { continuation.resume() }
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let open = state.withLock { state -> [StubConnection]? in
                state.stopped = true
                guard !state.connections.isEmpty else { return nil }
                state.waiting.append(continuation)
                return Array(state.connections.values)
            }
            guard let open else {
                continuation.resume()
                return
            }
            for connection in open { connection.closeNow() }
        }
    }

    /// Stops without waiting: what a listener nobody stopped does as it goes.
    func stopSoon() {
        acceptSource.cancel()
        let open = state.withLock { state -> [StubConnection] in
            state.stopped = true
            return Array(state.connections.values)
        }
        for connection in open { connection.closeNow() }
    }

    private func acceptPending() {
        while true {
            let descriptor = accept(socket.descriptor, nil, nil)
            guard descriptor >= 0 else {
                let code = errno
                if code == EINTR || code == ECONNABORTED { continue }
                if code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM {
                    // Out of descriptors: pause accepting for a moment instead of spinning on the ready socket.
                    acceptSource.suspend()
                    queue.asyncAfter(deadline: .now() + .milliseconds(100)) { [self] in acceptSource.resume() }
                }
                return
            }
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            var yes: Int32 = 1
            _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            #if canImport(Darwin)
                _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
            #endif
            // Counted and registered in one step, so that a stop taking its list of connections sees this one.
            let connection = state.withLock { state -> StubConnection? in
                guard !state.stopped, state.connections.count < Self.mostConnections else { return nil }
                // Unique in the process: the loop that serves every listener knows connections by it.
                let id = Self.lastID.add(1, ordering: .relaxed).newValue
                let connection = StubConnection(
                    id: id, descriptor: descriptor, loop: loops[Int(id % UInt64(loops.count))], limits: limits,
                    timeouts: timeouts,
                    step: step, onClose: { [weak self] id in self?.closed(id) })
                state.connections[id] = connection
                return connection
            }
            guard let connection else {
                _ = close(descriptor)
                continue
            }
            connection.start()
        }
    }

    private func closed(_ id: UInt64) {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.connections[id] = nil
            guard state.connections.isEmpty else { return [] }
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}
