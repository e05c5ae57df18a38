import Foundation
import NALLogging

#if canImport(CCurl)
    // For naming the loop threads: Swift's Glibc does not export pthread_setname_np.
    import CCurl
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A thread that serves stub listeners' connections: it waits for their sockets in one `SocketPoller`, and reads,
/// answers and writes on this thread, without a hop per request. Other threads hand it work (a serving task's
/// bytes) with `execute(_:)`.
///
/// A few per process (`count`), started when a listener first needs them, each serving its share of every
/// listener's connections and waiting without end while none is open. They replaced a Dispatch source per
/// connection: on Linux every event of a source costs a trip through Dispatch's manager thread, and that was a third
/// of the listener's work.
final class ListenerLoop: @unchecked Sendable {
    // @unchecked: `connections`, `events` and `nextCheck` are the loop thread's alone; `pending` is behind its lock;
    // the poller is the loop thread's but for `wake()`.

    private struct Pending: Sendable {
        var work: [@Sendable () -> Void] = []
        /// The loop waits, or is about to: the next work must wake it.
        var loopIsWaiting = false
    }

    private let poller: SocketPoller
    private let pending = Locked(Pending())
    /// The open connections, by id (their poller token).
    private var connections: [UInt64: StubConnection] = [:]
    private var events: [SocketPoller.Event] = []
    /// Where the loop's connections read, allocated once: a buffer per connection cost 64 KiB each under a flood.
    private var readBuffer = [UInt8](repeating: 0, count: 64 << 10)
    /// The work handed over, swapped with `pending`'s so that neither is allocated again each round.
    private var running: [@Sendable () -> Void] = []
    /// No connection's deadline comes before this: the connections are looked at again only then (`nil`: none
    /// has one).
    private var nextCheck: ContinuousClock.Instant?

    private static let sharedLoops = Locked<[ListenerLoop]>([])

    /// How the loops wait: epoll on Linux, unless `NAL_LISTENER_POLL=portable` asks for poll(2), the mechanism of
    /// Apple platforms, so that NAL's own tests run that path on Linux too.
    static let mechanism: SocketPoller.Mechanism =
        ProcessInfo.processInfo.environment["NAL_LISTENER_POLL"] == "portable" ? .portable : .best

    /// How many loops serve the listeners: one per processor, up to four. A stub server is rarely the busy end of
    /// a test, but with a client on the same machine, a second loop serves while the first waits for its turn.
    static let count = min(4, max(1, ProcessInfo.processInfo.activeProcessorCount))

    /// The process's loops, started on first use.
    /// - Throws: when the system has no descriptor to spare; no loop is started then.
    static func shared() throws(SocketPoller.Unavailable) -> [ListenerLoop] {
        try sharedLoops.withLock { shared throws(SocketPoller.Unavailable) in
            if !shared.isEmpty { return shared }
            // Every poller first, so that a failure leaves no thread behind.
            var pollers: [SocketPoller] = []
            for _ in 0..<count { pollers.append(try SocketPoller(mechanism)) }
            shared = pollers.map(ListenerLoop.init)
            return shared
        }
    }

    /// Reads what `descriptor` has, up to 64 KiB, into the loop's buffer and hands it to `body`; what read(2)
    /// returned. On the loop's thread: one buffer serves all its connections.
    func read(_ descriptor: Int32, _ body: (UnsafeRawBufferPointer) -> Void) -> Int {
        readBuffer.withUnsafeMutableBytes { buffer in
            let count = readDescriptor(descriptor, buffer.baseAddress, buffer.count)
            if count > 0 { body(UnsafeRawBufferPointer(rebasing: buffer[..<count])) }
            return count
        }
    }

    private init(poller: SocketPoller) {
        self.poller = poller
        let thread = Thread { [self] in
            // Named from inside, as the system shows it (`top -H`, `perf`, `/proc/…/comm`).
            #if canImport(CCurl)
                nal_name_current_thread("nal.stubs")
            #else
                Thread.current.name = "nal.stubs"
            #endif
            run()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Runs `work` on the loop's thread, after what was handed to it before.
    func execute(_ work: @escaping @Sendable () -> Void) {
        let wake = pending.withLock { pending in
            pending.work.append(work)
            defer { pending.loopIsWaiting = false }
            return pending.loopIsWaiting
        }
        if wake { poller.wake() }
    }

    // MARK: On the loop's thread

    /// Watches `connection`'s socket; it reads once it asks to.
    func register(_ connection: StubConnection) {
        connections[connection.id] = connection
        poller.watch(connection.descriptor, token: connection.id, read: true, write: false)
    }

    /// What `connection` waits for now.
    func watch(_ connection: StubConnection, read: Bool, write: Bool) {
        poller.watch(connection.descriptor, token: connection.id, read: read, write: write)
    }

    /// Stops watching `connection`, before its socket is closed.
    func unregister(_ connection: StubConnection) {
        poller.remove(connection.descriptor)
        connections[connection.id] = nil
    }

    /// `connection` has a deadline at `instant`: the loop looks at it then at the latest.
    func noteDeadline(_ instant: ContinuousClock.Instant) {
        if nextCheck.map({ instant < $0 }) ?? true { nextCheck = instant }
    }

    private func run() {
        while true {
            pending.withLock { pending in
                if pending.work.isEmpty { pending.loopIsWaiting = true }
                swap(&pending.work, &running)
            }
            for job in running { job() }
            let hadWork = !running.isEmpty
            running.removeAll(keepingCapacity: true)
            // After work, the sockets are looked at without waiting: more work may have come meanwhile, and a
            // stream of it must not keep the sockets waiting.
            poller.wait(milliseconds: hadWork ? 0 : waitMilliseconds(), into: &events)
            pending.withLock { $0.loopIsWaiting = false }
            for event in events {
                guard let connection = connections[event.token] else {
                    poller.remove(event.descriptor, ifWatchedAs: event.token)
                    continue
                }
                connection.handle(event)
            }
            checkDeadlines()
        }
    }

    /// How long to wait for sockets: until the next deadline, rounded up, or without end.
    private func waitMilliseconds() -> Int32 {
        guard let nextCheck else { return -1 }
        let left = (nextCheck - .now).components
        guard left.seconds < Int64(Int32.max / 1000) else { return Int32.max }
        let milliseconds = left.seconds * 1000 + (left.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: max(0, milliseconds))
    }

    /// Times out the connections whose deadline has come, once the earliest has; deadlines moved later meanwhile
    /// are found then, so that activity costs no bookkeeping.
    private func checkDeadlines() {
        guard let due = nextCheck else { return }
        let now = ContinuousClock.now
        guard now >= due else { return }
        nextCheck = nil
        for connection in Array(connections.values) {
            guard let deadline = connection.checkDeadline(now) else { continue }
            noteDeadline(deadline)
        }
        // Scans come 50 ms apart at most, however the deadlines are spread: thousands of connections opened one by
        // one would otherwise cost a scan of all each for every one's deadline.
        if let next = nextCheck { nextCheck = max(next, now + Self.checkInterval) }
    }

    /// The shortest time between two scans of the connections' deadlines; a timeout fires up to this late.
    static let checkInterval = Duration.milliseconds(50)
}

/// `read(2)`, out of reach of the loop's own `read`.
private func readDescriptor(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
