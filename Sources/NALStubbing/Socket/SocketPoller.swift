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
final class SocketPoller: @unchecked Sendable {
    // @unchecked: everything but `wake()` runs on the loop's thread; `wake()` only writes to a pipe.

    /// What one wait reported for one socket.
    struct Event {
        let token: UInt64
        let descriptor: Int32
        let readable: Bool
        let writable: Bool
        /// An error or a hang-up: the connection can neither send nor receive any more.
        let failed: Bool
    }

    private struct Interest {
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

    /// `nil` when the system has no descriptor to spare; `errno` says why.
    init?() {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { return nil }
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

    /// Watches `descriptor` for what is asked, or changes what it is watched for.
    func watch(_ descriptor: Int32, token: UInt64, read: Bool, write: Bool) {
        interests[descriptor] = Interest(token: token, read: read, write: write)
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
            for (descriptor, interest) in interests {
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
                    readable: revents & Int16(POLLIN) != 0,
                    writable: revents & Int16(POLLOUT) != 0,
                    failed: revents & (Int16(POLLERR) | Int16(POLLHUP) | Int16(POLLNVAL)) != 0))
        }
    }

    /// Ends a wait in progress, or the next one: callable from any thread.
    func wake() {
        var byte: UInt8 = 1
        _ = write(wakePipe.write, &byte, 1)
    }

    private func drainWakePipe() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(wakePipe.read, &bytes, bytes.count) > 0 {}
    }
}
