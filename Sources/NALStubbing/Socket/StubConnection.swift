import Foundation
import NALLogging
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One client connection of a stub listener: reads requests off it with `HTTPRequestParser`, hands each whole
/// request to `step`, in order, and queues its answer at once or runs the task that plays it (pipelined requests
/// wait their turn), holding the task back while the client reads slowly.
///
/// Event driven: its socket is one of many a `ListenerLoop` waits for, never a thread of its own. A client that
/// stalls holds only its own connection. Timeouts (`ListenerTimeouts`): a request must come whole within `head` of
/// its first byte, an idle keep-alive connection is closed after `idle`, and one whose client does not read for
/// `write` is dropped.
final class StubConnection: @unchecked Sendable {
    // @unchecked: every mutable field below is touched on the loop's thread only; `isClosed` is atomic.

    let id: UInt64
    let descriptor: Int32
    private let loop: ListenerLoop
    private let timeouts: ListenerTimeouts
    private let step: @Sendable (ParsedRequest) -> ListenerStep
    private let onClose: @Sendable (UInt64) -> Void
    /// Registered with the loop (until closed).
    private var registered = false
    private var readSuspended = false
    private var writeSuspended = true
    private var parser: HTTPRequestParser
    private var outgoing: [UInt8] = []
    private var sent = 0
    private var serving: Task<Void, Never>?
    private var closeWhenFlushed = false
    private var peerFinished = false
    private var closed = false
    /// Whether a request has begun to arrive; its head's deadline runs from its first byte.
    private var requestStarted = false
    /// Serving tasks waiting for the outgoing bytes to drain.
    private var waitingForRoom: [CheckedContinuation<Bool, Never>] = []
    /// An answer is complete, and the next request is read once what it left queued has mostly gone out: a client
    /// that pipelines requests without reading the answers cannot pile them up.
    private var readsWhenDrained = false
    /// The write deadline runs: it moves only when bytes go out.
    private var writeDeadlineArmed = false
    /// A refusal went out and the sending side is shut: what the client still sends is read and dropped for a
    /// moment, so that the kernel does not answer it with a reset that could destroy the refusal (RFC 9112 §9.6).
    private var lingering = false
    private let closedFlag = Atomic<Bool>(false)

    /// Bytes queued for the client past which a serving task waits, and to which they must fall before it goes on.
    static let highWater = 1 << 20
    static let lowWater = 256 << 10

    init(
        id: UInt64, descriptor: Int32, loop: ListenerLoop, limits: HTTPRequestParser.Limits,
        timeouts: ListenerTimeouts, step: @escaping @Sendable (ParsedRequest) -> ListenerStep,
        onClose: @escaping @Sendable (UInt64) -> Void
    ) {
        self.id = id
        self.descriptor = descriptor
        self.loop = loop
        self.timeouts = timeouts
        self.step = step
        self.onClose = onClose
        parser = HTTPRequestParser(limits: limits)
    }

    /// Whether the connection is closed: a serving task stops sending.
    var isClosed: Bool { closedFlag.load(ordering: .acquiring) }

    /// Starts reading. Call once.
    func start() {
        loop.execute { [self] in
            // Closed before it started (the listener stopped): the descriptor is gone already.
            guard !closed else { return }
            loop.register(self)
            registered = true
            setDeadline(timeouts.idle)
        }
    }

    /// What the loop saw on the socket.
    func handle(_ event: SocketPoller.Event) {
        if event.invalid {
            // The number was closed behind the loop's back and may be another socket's by now: no I/O on it.
            Self.log.error("a stub listener's connection lost its socket; it is dropped")
            abandon()
            return
        }
        if event.failed {
            // An error (a reset): nothing more can be sent or received.
            close()
            return
        }
        // A hang-up is read as the end of what the client sends (read gives 0); what it still waits for is sent
        // until a write fails. On Apple platforms a half-close alone reports it.
        if event.readable || event.hungUp, !readSuspended { readAvailable() }
        if event.writable || event.hungUp, !writeSuspended { flush() }
    }

    private static var log: Logger { Logger(nal: .stubbing) }

    // MARK: What a serving task calls

    /// Queues `bytes` for the client.
    func send(_ bytes: [UInt8]) {
        loop.execute { [self] in
            guard !closed else { return }
            outgoing.append(contentsOf: bytes)
            flush()
        }
    }

    /// Queues `data` for the client.
    func send(_ data: Data) {
        send([UInt8](data))
    }

    /// Waits until the bytes queued for the client are few enough to queue more; `false` once the connection is
    /// closed.
    func waitForRoom() async -> Bool {
        await withCheckedContinuation { continuation in
            loop.execute { [self] in
                if closed {
                    continuation.resume(returning: false)
                } else if outgoing.count - sent <= Self.highWater {
                    continuation.resume(returning: true)
                } else {
                    waitingForRoom.append(continuation)
                }
            }
        }
    }

    /// The answer to the current request is complete: reads the next one, or closes the connection once the answer
    /// is sent when `keepAlive` is false.
    func finishResponse(keepAlive: Bool) {
        loop.execute { [self] in
            guard !closed else { return }
            serving = nil
            guard keepAlive, !peerFinished || parser.isMidRequest else {
                closeWhenFlushed = true
                flush()
                return
            }
            readsWhenDrained = true
            readNextWhenDrained()
        }
    }

    /// Reads the next request once the answers queued are down to `lowWater`.
    private func readNextWhenDrained() {
        guard readsWhenDrained, outgoing.count - sent <= Self.lowWater else { return }
        readsWhenDrained = false
        setDeadline(timeouts.idle)
        resumeReading()
        processRequests()
    }

    /// Ends the connection after what was queued is sent, without finishing the answer (a stub cut short or a
    /// network error): the client sees the connection end.
    func drop() {
        loop.execute { [self] in
            guard !closed else { return }
            serving = nil
            closeWhenFlushed = true
            flush()
        }
    }

    /// Closes at once, for the listener's stop: a serving task is cancelled.
    func closeNow() {
        loop.execute { [self] in close() }
    }

    // MARK: Reading

    private func readAvailable() {
        guard !closed else { return }
        let count = loop.read(descriptor) { [self] bytes in
            // After a refusal, what the client still sends is dropped, until it closes or the linger ends.
            if !lingering { parser.append(bytes) }
        }
        if lingering {
            if count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) { close() }
            return
        }
        if count > 0 {
            processRequests()
        } else if count == 0 {
            // The client finished sending (it may still read): what it sent whole is answered, then the
            // connection closes once that has gone out.
            peerFinished = true
            suspendReading()
            processRequests()
        } else if errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR {
            close()
        }
    }

    /// Serves the next whole request, unless one is being served.
    private func processRequests() {
        guard !closed, serving == nil, !closeWhenFlushed else { return }
        do {
            while let event = try parser.next() {
                switch event {
                case .continueExpected:
                    outgoing.append(contentsOf: Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
                    flush()
                case .request(let request):
                    requestStarted = false
                    switch step(request) {
                    case .now(let bytes, let keepAlive, let delivered):
                        outgoing.append(contentsOf: bytes)
                        delivered?()
                        guard keepAlive else {
                            // Nothing more is read: a client that does not read the answer cannot fill the parser.
                            suspendReading()
                            closeWhenFlushed = true
                            flush()
                            return
                        }
                        // Pipelined requests are answered in one write, unless the client lets the answers pile up.
                        if outgoing.count - sent > Self.highWater {
                            flush()
                            if outgoing.count - sent > Self.lowWater {
                                readsWhenDrained = true
                                suspendReading()
                                return
                            }
                        }
                    case .later(let work):
                        // One request at a time: the next waits in the parser's buffer, and reading pauses so that
                        // a client cannot pile requests up while a slow answer plays.
                        suspendReading()
                        clearDeadline()
                        serving = Task { await work(self) }
                        flush()
                        return
                    }
                }
            }
        } catch {
            refuse(error)
            return
        }
        flush()
        guard !closed else { return }
        if peerFinished {
            // Nothing more can come: what was answered goes out, and a request cut short is dropped.
            closeWhenFlushed = true
            flush()
        } else if parser.isMidRequest {
            // A head's deadline runs from its first byte and is not moved by more bytes: a client sending a byte
            // at a time cannot hold the connection (slowloris).
            if !requestStarted {
                requestStarted = true
                setDeadline(timeouts.head)
            }
        } else {
            requestStarted = false
            // Idle only once the answers have gone out: until then the write deadline holds a client that does not
            // read them.
            if outgoing.count == sent { setDeadline(timeouts.idle) }
        }
    }

    /// Answers a request the parser refused with its status, and closes.
    private func refuse(_ refusal: RequestRefusal) {
        suspendReading()
        outgoing.append(contentsOf: ListenerResponseHead.refusal(refusal))
        refused = true
        closeWhenFlushed = true
        flush()
    }

    /// Whether the connection ends with a refusal: it lingers before it closes.
    private var refused = false

    private func suspendReading() {
        guard !readSuspended else { return }
        readSuspended = true
        watch()
    }

    private func resumeReading() {
        guard readSuspended, !peerFinished else { return }
        readSuspended = false
        watch()
    }

    /// Tells the loop what the socket waits for now.
    private func watch() {
        guard registered, !closed else { return }
        loop.watch(self, read: !readSuspended, write: !writeSuspended)
    }

    // MARK: Writing

    /// Writes what is queued until the socket takes no more; then waits for it to be writable.
    private func flush() {
        guard !closed else { return }
        var progressed = false
        while sent < outgoing.count {
            let count = outgoing.withUnsafeBytes { bytes in
                Self.sendWithoutSignal(descriptor, bytes.baseAddress.map { $0 + sent }, bytes.count - sent)
            }
            if count > 0 {
                sent += count
                progressed = true
                continue
            }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                resumeWriting()
                // The client reads slowly: it has `write` from each bit of progress to read more, and a client that
                // reads nothing is dropped `write` after it stopped, however much more is queued meanwhile.
                if progressed || !writeDeadlineArmed {
                    writeDeadlineArmed = true
                    setDeadline(timeouts.write)
                }
                if progressed {
                    // A slow but steady reader may never let the buffer drain whole: what it has taken goes.
                    if sent >= Self.highWater {
                        outgoing.removeFirst(sent)
                        sent = 0
                    }
                    wakeWriters()
                    readNextWhenDrained()
                }
                return
            }
            // The client is gone (EPIPE, ECONNRESET).
            close()
            return
        }
        outgoing.removeAll(keepingCapacity: outgoing.capacity <= Self.highWater)
        sent = 0
        writeDeadlineArmed = false
        suspendWriting()
        if closeWhenFlushed {
            refused ? linger() : close()
            return
        }
        // A stream that pauses between events is not a stalled client.
        if serving != nil { clearDeadline() }
        wakeWriters()
        readNextWhenDrained()
    }

    /// Shuts the sending side after a refusal and reads, dropping it, what the client still sends for a second.
    private func linger() {
        lingering = true
        _ = shutdown(descriptor, Int32(SHUT_WR))
        setDeadline(.seconds(1))
        if readSuspended {
            readSuspended = false
            watch()
        }
    }

    private func wakeWriters() {
        guard !waitingForRoom.isEmpty, outgoing.count - sent <= Self.lowWater else { return }
        let waiting = waitingForRoom
        waitingForRoom = []
        for continuation in waiting { continuation.resume(returning: true) }
    }

    private func resumeWriting() {
        guard writeSuspended else { return }
        writeSuspended = false
        watch()
        // Writers may go on as soon as enough has gone out, before all of it has.
        wakeWriters()
    }

    private func suspendWriting() {
        guard !writeSuspended else { return }
        writeSuspended = true
        watch()
    }

    /// `send` without SIGPIPE: a client that closed must not end the test process.
    private static func sendWithoutSignal(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
        #if os(Linux)
            return Glibc.send(descriptor, bytes, count, Int32(MSG_NOSIGNAL))
        #else
            return Darwin.send(descriptor, bytes, count, 0)
        #endif
    }

    // MARK: Deadlines and closing

    /// Sets when the connection times out. The loop looks at it then at the latest; a deadline pushed later by
    /// each request (the idle one) costs the loop nothing until the earlier one comes.
    private func setDeadline(_ timeout: Duration) {
        let instant = ContinuousClock.now + timeout
        deadline = instant
        loop.noteDeadline(instant)
    }

    /// No deadline: an answer plays.
    private func clearDeadline() {
        deadline = nil
    }

    /// When the connection times out; `nil` while an answer plays.
    private var deadline: ContinuousClock.Instant?

    /// Times the connection out when its deadline has come; otherwise the deadline still to come, if any.
    func checkDeadline(_ now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        guard !closed, let deadline else { return nil }
        guard now >= deadline else { return deadline }
        timedOut()
        return closed ? nil : self.deadline
    }

    private func timedOut() {
        guard !closed else { return }
        if serving == nil, parser.isMidRequest, !closeWhenFlushed, !lingering {
            refuse(RequestRefusal(408, "the request did not come whole in time"))
            // The refusal gets a moment to go out; a client that does not read it is dropped then.
            setDeadline(.seconds(1))
            return
        }
        close()
    }

    private func close() {
        end(closingDescriptor: true)
    }

    /// Ends the connection without closing its descriptor, which is no longer its own.
    private func abandon() {
        end(closingDescriptor: false)
    }

    private func end(closingDescriptor: Bool) {
        guard !closed else { return }
        closed = true
        closedFlag.store(true, ordering: .releasing)
        serving?.cancel()
        serving = nil
        deadline = nil
        let waiting = waitingForRoom
        waitingForRoom = []
        for continuation in waiting { continuation.resume(returning: false) }
        if registered { loop.unregister(self) }
        if closingDescriptor { closeDescriptor(descriptor) }
        onClose(id)
    }
}

/// `close(2)`, out of reach of the connection's own `close()`.
private func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}
