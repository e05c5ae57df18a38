#if canImport(CCurl)
    import CCurl
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which of many sockets are ready, for `ListenerLoop`, level-triggered: epoll on Linux, poll(2) on Apple platforms
/// (and on Linux when asked, so that NAL's tests run that path too). Each socket is registered under a token of the
/// caller's; a write to a pipe wakes a wait from another thread. A socket that waits for nothing is left out of the
/// wait: its hang-up would be reported again and again.
///
/// poll(2) looks at every socket on each wait: with 4,000 idle connections open, a request cost about a
/// millisecond of it. epoll costs what the ready sockets cost.
///
/// Not thread-safe, except `wake()`: the loop's thread alone registers and waits.
final class SocketPoller {
    /// How readiness is asked for.
    enum Mechanism: Sendable {
        /// epoll on Linux, poll(2) elsewhere.
        case best
        /// poll(2), everywhere.
        case portable
    }

    /// What one wait reported for one socket.
    struct Event {
        let token: UInt64
        let descriptor: Int32
        let readable: Bool
        let writable: Bool
        /// The peer hung up: on Linux both directions are shut; on Apple platforms a half-close is enough.
        let hungUp: Bool
        /// An error on the socket (a reset).
        let failed: Bool
        /// The descriptor is not open: closed behind the poller's back.
        let invalid: Bool
    }

    private struct Interest: Equatable {
        var token: UInt64
        var read: Bool
        var write: Bool
    }

    /// The token of the wake-up pipe's events.
    private static let wakeToken = UInt64.max
    private let wakePipe: (read: Int32, write: Int32)
    /// The sockets and what they wait for.
    private var interests: [Int32: Interest] = [:]
    /// `interests` as poll(2) takes them, made again only after a change.
    private var pollDescriptors: [pollfd] = []
    private var pollTokens: [UInt64] = []
    private var changed = true
    /// The epoll instance on Linux, or -1 for poll(2).
    private let epoll: Int32
    #if canImport(CCurl)
        private var ready = [nal_epoll_ready](repeating: nal_epoll_ready(), count: 256)
    #endif

    /// Why a poller could not be made: the system had no descriptor to spare.
    struct Unavailable: Error {
        let reason: String
    }

    init(_ mechanism: Mechanism) throws(Unavailable) {
        var descriptors: [Int32] = [0, 0]
        // pipe2(O_CLOEXEC) is not in Swift's Glibc: a process another thread spawns between these calls could
        // inherit the pipe, as it could ListeningSocket's socket. Made once per loop, at the first listen.
        guard pipe(&descriptors) == 0 else { throw Unavailable(reason: String(cString: strerror(errno))) }
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        wakePipe = (descriptors[0], descriptors[1])
        #if canImport(CCurl)
            epoll = mechanism == .best ? nal_epoll_create() : -1
            if mechanism == .best, epoll < 0 {
                let reason = String(cString: strerror(errno))
                _ = close(descriptors[0])
                _ = close(descriptors[1])
                throw Unavailable(reason: reason)
            }
        #else
            epoll = -1
        #endif
        watch(wakePipe.read, token: Self.wakeToken, read: true, write: false)
    }

    deinit {
        if epoll >= 0 { _ = close(epoll) }
        _ = close(wakePipe.read)
        _ = close(wakePipe.write)
    }

    /// Watches `descriptor` for what is asked, or changes what it is watched for. A socket watched for nothing is
    /// left out of the wait: poll(2) would report its hang-up again and again.
    func watch(_ descriptor: Int32, token: UInt64, read: Bool, write: Bool) {
        let interest = Interest(token: token, read: read, write: write)
        let before = interests[descriptor]
        guard before != interest else { return }
        interests[descriptor] = interest
        changed = true
        #if canImport(CCurl)
            guard epoll >= 0 else { return }
            let wasWatched = before.map { $0.read || $0.write } ?? false
            if !read, !write {
                if wasWatched { _ = nal_epoll_remove(epoll, descriptor) }
            } else {
                _ = nal_epoll_watch(epoll, descriptor, wasWatched ? 0 : 1, read ? 1 : 0, write ? 1 : 0, token)
            }
        #endif
    }

    /// Stops watching `descriptor`; call before closing it.
    func remove(_ descriptor: Int32) {
        guard let before = interests.removeValue(forKey: descriptor) else { return }
        changed = true
        #if canImport(CCurl)
            if epoll >= 0, before.read || before.write { _ = nal_epoll_remove(epoll, descriptor) }
        #endif
    }

    /// Stops watching `descriptor` if it is still watched under `token`: an event nobody takes any more must not
    /// come back on every wait.
    func remove(_ descriptor: Int32, ifWatchedAs token: UInt64) {
        guard interests[descriptor]?.token == token else { return }
        remove(descriptor)
    }

    /// Waits up to `milliseconds` (-1: without end) for sockets to be ready, and puts what they are in `events`.
    /// A wake-up from `wake()` ends the wait and is not reported.
    func wait(milliseconds: Int32, into events: inout [Event]) {
        events.removeAll(keepingCapacity: true)
        #if canImport(CCurl)
            if epoll >= 0 {
                let count = ready.withUnsafeMutableBufferPointer { ready in
                    nal_epoll_wait(epoll, ready.baseAddress, Int32(ready.count), milliseconds)
                }
                for entry in ready.prefix(max(0, Int(count))) {
                    guard entry.token != Self.wakeToken else {
                        drainWakePipe()
                        continue
                    }
                    events.append(
                        Event(
                            token: entry.token, descriptor: -1, readable: entry.readable != 0,
                            writable: entry.writable != 0, hungUp: entry.hung_up != 0, failed: entry.failed != 0,
                            invalid: false))
                }
                return
            }
        #endif
        if changed {
            changed = false
            pollDescriptors.removeAll(keepingCapacity: true)
            pollTokens.removeAll(keepingCapacity: true)
            for (descriptor, interest) in interests where interest.read || interest.write {
                let asked = (interest.read ? Int16(POLLIN) : 0) | (interest.write ? Int16(POLLOUT) : 0)
                pollDescriptors.append(pollfd(fd: descriptor, events: asked, revents: 0))
                pollTokens.append(interest.token)
            }
        }
        let count = poll(&pollDescriptors, nfds_t(pollDescriptors.count), milliseconds)
        guard count > 0 else { return }
        for index in pollDescriptors.indices where pollDescriptors[index].revents != 0 {
            let revents = pollDescriptors[index].revents
            pollDescriptors[index].revents = 0
            guard pollTokens[index] != Self.wakeToken else {
                drainWakePipe()
                continue
            }
            events.append(
                Event(
                    token: pollTokens[index], descriptor: pollDescriptors[index].fd,
                    readable: revents & Int16(POLLIN) != 0, writable: revents & Int16(POLLOUT) != 0,
                    hungUp: revents & Int16(POLLHUP) != 0, failed: revents & Int16(POLLERR) != 0,
                    invalid: revents & Int16(POLLNVAL) != 0))
        }
    }

    /// Ends a wait in progress, or the next one: callable from any thread.
    func wake() {
        var byte: UInt8 = 1
        _ = write(wakePipe.write, &byte, 1)
    }

    private func drainWakePipe() {
        var bytes: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        let size = MemoryLayout.size(ofValue: bytes)
        while withUnsafeMutableBytes(of: &bytes, { read(wakePipe.read, $0.baseAddress, size) }) > 0 {}
    }
}
