#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which of many sockets are ready, for `ListenerLoop`: poll(2), level-triggered, the same code on Linux and on
/// Apple platforms, so that what the tests run here is what a UI test's Mac runs. Each socket is registered under a
/// token of the caller's; a write to a pipe wakes a wait from another thread.
///
/// poll(2) looks at every socket on each wait: with the listener's 4,096 connections at most, that costs tens of
/// microseconds, and nothing per request when few change what they wait for.
///
/// Not thread-safe, except `wake()`: the loop's thread alone registers and waits.
final class SocketPoller {
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

    /// Why a poller could not be made: the system had no descriptor to spare.
    struct Unavailable: Error {
        let reason: String
    }

    init() throws(Unavailable) {
        var descriptors: [Int32] = [0, 0]
        // pipe2(O_CLOEXEC) is not in Swift's Glibc: a process another thread spawns between these calls could
        // inherit the pipe, as it could ListeningSocket's socket. Made once per loop, at the first listen.
        guard pipe(&descriptors) == 0 else { throw Unavailable(reason: String(cString: strerror(errno))) }
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        wakePipe = (descriptors[0], descriptors[1])
        interests[wakePipe.read] = Interest(token: Self.wakeToken, read: true, write: false)
    }

    deinit {
        _ = close(wakePipe.read)
        _ = close(wakePipe.write)
    }

    /// Watches `descriptor` for what is asked, or changes what it is watched for. A socket watched for nothing is
    /// left out of the wait: poll(2) would report its hang-up again and again.
    func watch(_ descriptor: Int32, token: UInt64, read: Bool, write: Bool) {
        let interest = Interest(token: token, read: read, write: write)
        guard interests[descriptor] != interest else { return }
        interests[descriptor] = interest
        changed = true
    }

    /// Stops watching `descriptor`; call before closing it.
    func remove(_ descriptor: Int32) {
        interests[descriptor] = nil
        changed = true
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
