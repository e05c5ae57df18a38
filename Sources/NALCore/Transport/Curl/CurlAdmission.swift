#if os(Linux)
    import Foundation

    /// Which calls of one `CurlTransport` may hand libcurl a transfer now, per origin, and the calls that wait for
    /// their turn, first come first served.
    ///
    /// libcurl queues a transfer past its connection limit itself, but only once it holds an easy handle: some
    /// 12 KiB each, and 10,000 calls at once grew the process by about 380 MiB. A call past its origin's limit waits
    /// here instead, holding no handle: only its continuation, its deadline and its URL (for the timeout's error),
    /// in a `Waiter` of a few words; the request stays in the caller's frame until the call is admitted and sets up
    /// its transfer.
    ///
    /// The limit per origin is how many transfers libcurl can move at once there, so that admitting fewer never
    /// slows a call down:
    /// - plain http is HTTP/1.1 (libcurl offers HTTP/2 only over TLS here): one transfer per connection, so the
    ///   transport's `maximumConnectionsPerHost`;
    /// - https may be HTTP/2, whose connections carry up to 100 streams each (libcurl's default
    ///   `CURLMOPT_MAX_CONCURRENT_STREAMS`, and what servers commonly allow): `maximumConnectionsPerHost` × 100. An
    ///   https origin that turns out to speak HTTP/1.1 then has at most that many handles waiting inside libcurl
    ///   (600 by default, about 7 MiB), a bounded cost that learning each origin's protocol would not repay.
    ///
    /// A slot is taken when a call is admitted and given back, exactly once, when its transfer leaves the event
    /// loop's hands (out of libcurl, or never started); a slot given back goes straight to the origin's next waiter,
    /// so a call that arrives meanwhile cannot overtake it.
    ///
    /// Threading: the value lives in `CurlEventLoop`'s command queue, behind its lock, as the commands do: a caller
    /// is admitted, or waits, in the lock it takes to queue a command anyway; the loop thread gives slots back in the
    /// lock it takes before it waits.
    struct CurlAdmission: Sendable {
        /// Resumes a waiting call: with `nil` once it holds a slot, or with why it ends without one.
        typealias Continuation = CheckedContinuation<NALError?, Never>

        /// Where connections can be shared: scheme, host (in lowercase) and port.
        struct Origin: Hashable, Sendable {
            let isSecure: Bool
            let host: String
            let port: Int

            init(_ url: URL) {
                isSecure = url.scheme.map { Self.lowercased($0) == "https" } ?? false
                host = Self.lowercased(url.host ?? "")
                port = url.port ?? (isSecure ? 443 : 80)
            }

            /// `text` in lowercase; as it is, with no new string, when it has no capital (every call reads its URL).
            private static func lowercased(_ text: String) -> String {
                text.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
                    || !text.utf8.allSatisfy { $0 < 0x80 }
                    ? text.lowercased() : text
            }
        }

        /// A call waiting for a slot.
        struct Waiter: Sendable {
            /// Ids grow in the order calls came, so the queue is sorted by them.
            let id: UInt64
            /// When the call stops waiting: it then ends with its idle timeout (see `CurlEventLoop.admit`).
            let deadline: ContinuousClock.Instant
            let idleTimeout: Duration
            let url: URL
            /// `nil` once it has left the queue (cancelled or timed out) before reaching its head.
            var continuation: Continuation?
        }

        /// How a call's admission went.
        enum Entry {
            /// It holds a slot: it may start its transfer, and must give the slot back (`release`).
            case admitted
            /// The origin is full, or others wait before it: it must wait (`park`).
            case full
        }

        /// One origin's slots and queue.
        fileprivate struct Slots: Sendable {
            /// Calls admitted whose transfers have not left the loop's hands yet.
            var admitted = 0
            /// The waiters, in the order they came, from `head` on; those before `head` have been admitted.
            var queue: [Waiter] = []
            var head = 0
            /// Waiters in `queue[head...]` still waiting (not cancelled or timed out).
            var waiting = 0
        }

        /// The transport's `maximumConnectionsPerHost`.
        let connectionsPerHost: Int
        private var origins: [Origin: Slots] = [:]
        /// No waiter's deadline is earlier than this (or `nil`: none waits); see `expire(now:)`.
        private(set) var earliestDeadline: ContinuousClock.Instant?
        /// How many calls wait, every origin's.
        private(set) var waitingCount = 0

        init(connectionsPerHost: Int) {
            self.connectionsPerHost = max(1, connectionsPerHost)
        }

        /// The most transfers of `origin` in libcurl at once (see the type's comment).
        func limit(of origin: Origin) -> Int {
            guard origin.isSecure else { return connectionsPerHost }
            // Saturating: `maximumConnectionsPerHost` may be as large as `Int.max`.
            return connectionsPerHost > Int.max / 100 ? Int.max : connectionsPerHost * 100
        }

        /// How many calls of `origin` hold a slot.
        func admittedCount(of origin: Origin) -> Int { origins[origin]?.admitted ?? 0 }

        /// Admits a call to `origin` when a slot is free and nobody waits before it.
        mutating func enter(_ origin: Origin) -> Entry {
            let limit = limit(of: origin)
            return origins[origin, default: Slots()].enter(limit: limit) ? .admitted : .full
        }

        /// Queues a call that found its origin full; it is resumed with `nil` when admitted.
        mutating func park(_ waiter: Waiter, at origin: Origin) {
            origins[origin, default: Slots()].append(waiter)
            waitingCount += 1
            if earliestDeadline.map({ waiter.deadline < $0 }) ?? true { earliestDeadline = waiter.deadline }
        }

        /// Takes a cancelled call out of the queue; returns its continuation, or `nil` when it is no longer waiting
        /// (admitted, or ended, already). It never held a slot, so nobody is admitted in its place.
        mutating func withdraw(_ id: UInt64, at origin: Origin) -> Continuation? {
            guard let continuation = origins[origin]?.withdraw(id) else { return nil }
            waitingCount -= 1
            dropIfUnused(origin)
            return continuation
        }

        /// Gives back a slot of `origin`: the next waiter takes it, and is returned to be resumed.
        mutating func release(_ origin: Origin) -> Continuation? {
            guard let next = origins[origin]?.release() else {
                dropIfUnused(origin)
                return nil
            }
            waitingCount -= 1
            return next
        }

        /// Takes out the waiters whose deadline has come; returns them with their timeout.
        mutating func expire(now: ContinuousClock.Instant) -> [(Continuation, NALError)] {
            guard let earliest = earliestDeadline, earliest <= now else { return [] }
            var expired: [(Continuation, NALError)] = []
            var earliestLeft: ContinuousClock.Instant?
            for origin in Array(origins.keys) {
                guard var slots = origins[origin] else { continue }
                for index in slots.queue.indices[slots.head...] {
                    guard let continuation = slots.queue[index].continuation else { continue }
                    let waiter = slots.queue[index]
                    if waiter.deadline <= now {
                        slots.queue[index].continuation = nil
                        slots.waiting -= 1
                        waitingCount -= 1
                        let seconds =
                            Double(waiter.idleTimeout.components.seconds)
                            + Double(waiter.idleTimeout.components.attoseconds) / 1e18
                        expired.append(
                            (continuation, .timedOut(TimeoutFailure(limit: .idle, seconds: seconds, url: waiter.url))))
                    } else if earliestLeft.map({ waiter.deadline < $0 }) ?? true {
                        earliestLeft = waiter.deadline
                    }
                }
                slots.compact()
                origins[origin] = slots
                dropIfUnused(origin)
            }
            earliestDeadline = earliestLeft
            return expired
        }

        /// Takes out every waiter (the transport shuts down); their continuations are returned.
        mutating func removeAllWaiters() -> [Continuation] {
            var waiters: [Continuation] = []
            for origin in Array(origins.keys) {
                guard var slots = origins[origin] else { continue }
                waiters += slots.queue[slots.head...].compactMap(\.continuation)
                slots.queue = []
                slots.head = 0
                slots.waiting = 0
                origins[origin] = slots
                dropIfUnused(origin)
            }
            waitingCount = 0
            earliestDeadline = nil
            return waiters
        }

        /// Forgets an origin with no call admitted or waiting, so that a program that calls many hosts does not
        /// keep an entry for each.
        private mutating func dropIfUnused(_ origin: Origin) {
            guard let slots = origins[origin], slots.admitted == 0, slots.waiting == 0 else { return }
            origins[origin] = nil
        }
    }

    extension CurlAdmission.Slots {
        /// Takes a slot when one is free and nobody waits.
        mutating func enter(limit: Int) -> Bool {
            guard waiting == 0, admitted < limit else { return false }
            admitted += 1
            return true
        }

        mutating func append(_ waiter: CurlAdmission.Waiter) {
            queue.append(waiter)
            waiting += 1
        }

        /// The slot goes to the first waiter still waiting, whose continuation is returned; or it is freed.
        mutating func release() -> CurlAdmission.Continuation? {
            while head < queue.count {
                let continuation = queue[head].continuation
                queue[head].continuation = nil
                head += 1
                if let continuation {
                    waiting -= 1
                    compact()
                    return continuation
                }
            }
            compact()
            admitted -= 1
            return nil
        }

        /// Takes the waiter `id` out of the queue, found by bisection (ids grow along it).
        mutating func withdraw(_ id: UInt64) -> CurlAdmission.Continuation? {
            var low = head
            var high = queue.count
            while low < high {
                let middle = (low + high) / 2
                if queue[middle].id < id { low = middle + 1 } else { high = middle }
            }
            guard low < queue.count, queue[low].id == id, let continuation = queue[low].continuation else {
                return nil
            }
            queue[low].continuation = nil
            waiting -= 1
            compact()
            return continuation
        }

        /// Drops the admitted and withdrawn waiters before `head` once they are half the queue, so that it does not
        /// grow while calls keep coming.
        mutating func compact() {
            if waiting == 0 {
                queue.removeAll(keepingCapacity: false)
                head = 0
            } else if head > 32, head * 2 > queue.count {
                queue.removeFirst(head)
                head = 0
            }
        }
    }
#endif
