#if os(Linux)
    import Foundation
    import Synchronization

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

        /// A call waiting for a slot, or at the entrance.
        struct Waiter: Sendable {
            /// Ids grow in the order calls came, so each line is sorted by them.
            let id: UInt64
            /// When the call stops waiting: it then ends with `timeout`.
            let deadline: ContinuousClock.Instant
            let idleTimeout: Duration
            let url: URL
            /// What the call ends with at its deadline when that is not its idle timeout (its total timeout came
            /// first).
            var onDeadline: NALError? = nil
            /// `nil` once it has left the line (cancelled or timed out) before reaching its head.
            var continuation: Continuation?

            /// The error the call ends with when its deadline comes while it waits.
            var timeout: NALError {
                if let onDeadline { return onDeadline }
                let seconds =
                    Double(idleTimeout.components.seconds) + Double(idleTimeout.components.attoseconds) / 1e18
                return .timedOut(TimeoutFailure(limit: .idle, seconds: seconds, url: url))
            }
        }

        /// How a call's admission went.
        enum Entry {
            /// It holds a slot: it may start its transfer, and must give the slot back (`release`).
            case admitted
            /// The origin is full, or others wait before it: it must wait (`park`).
            case full
        }

        /// One origin's slots, and its lines once a call has waited there.
        fileprivate struct Slots: Sendable {
            /// Calls admitted whose transfers have not left the loop's hands yet.
            var admitted = 0
            /// Made when a call first waits: a call that never waits costs no allocation, and the dictionary's
            /// in-place access to a value this small needs none either.
            var lines: Lines?

            var isUnused: Bool { admitted == 0 && (lines?.isEmpty ?? true) }
        }

        /// An origin's two lines. A class, so that a line changes in place, never copied out of the dictionary.
        // @unchecked: it lives in `CurlAdmission`, behind the event loop's lock, as the rest of it does.
        fileprivate final class Lines: @unchecked Sendable {
            /// Calls waiting for a slot, deep in their chain of frames.
            var waiting = CurlWaiterQueue()
            /// Calls waiting at the `Client`'s entrance, before any of that chain exists.
            var entrance = CurlWaiterQueue()
            /// Since when calls have waited at the entrance although the line for slots is short: the calls let in to
            /// fill it have not come (see `starvationLimit`); `nil` when it is not so.
            var starvedSince: ContinuousClock.Instant?

            var isEmpty: Bool { waiting.count == 0 && entrance.count == 0 }
        }

        /// How long calls wait at the entrance while the calls let in before them neither reach the line for slots
        /// nor end (a middleware that waits on another call, which itself waits at the entrance): then every waiting
        /// call goes in, as if there were no entrance. The entrance saves memory; it must never stall a program.
        static let starvationLimit = Duration.seconds(1)

        /// The transport's `maximumConnectionsPerHost`.
        let connectionsPerHost: Int
        private var origins: [Origin: Slots] = [:]
        /// No waiter's deadline is earlier than this (or `nil`: none waits); see `expire(now:)`.
        private(set) var earliestDeadline: ContinuousClock.Instant?
        /// No origin has starved since earlier than this (or `nil`: none has).
        private var earliestStarvation: ContinuousClock.Instant?
        /// How many calls wait for a slot, every origin's.
        var waitingCount: Int { counts.waiting.load(ordering: .relaxed) }
        /// How many calls wait at the entrance, every origin's.
        var entranceWaitingCount: Int { counts.entrance.load(ordering: .relaxed) }
        /// Both counts, which change under the event loop's lock and which any thread may read without it: a call
        /// passes the entrance without the lock while no line anywhere is long (`passWithoutLook`), and a call that
        /// ends takes the lock only while someone waits at an entrance.
        let counts = Counts()

        /// How many calls wait, in the lines for slots and at the entrances, every origin's.
        final class Counts: Sendable {
            let waiting = Atomic<Int>(0)
            let entrance = Atomic<Int>(0)

            /// Whether every `Client` call may go on now, whatever its origin, without a look at its line: nobody
            /// waits at an entrance, and no line anywhere is as long as the shortest line for slots (the limit and
            /// 128 more). A count read a moment late only lets a call wait in the line, as it would without an
            /// entrance, or pass a call that has just begun to wait at the entrance.
            var passWithoutLook: Bool {
                entrance.load(ordering: .relaxed) == 0 && waiting.load(ordering: .relaxed) <= lineBeyondLimit
            }
        }

        init(connectionsPerHost: Int) {
            self.connectionsPerHost = max(1, connectionsPerHost)
        }

        /// When `expire(now:)` next has work: a waiter's deadline, or an origin's starvation ending.
        var nextCheck: ContinuousClock.Instant? {
            guard let starved = earliestStarvation.map({ $0 + Self.starvationLimit }) else { return earliestDeadline }
            return earliestDeadline.map { min($0, starved) } ?? starved
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

        /// Queues a call that found its origin full; it is resumed with `nil` when admitted. `fromEntrance`: it had
        /// waited at the entrance, so its arrival shows the calls let in are moving.
        mutating func park(
            _ waiter: Waiter, at origin: Origin, now: ContinuousClock.Instant = .now, fromEntrance: Bool = false
        ) {
            let lines = lines(of: origin)
            lines.waiting.append(waiter)
            counts.waiting.add(1, ordering: .relaxed)
            lowerEarliestDeadline(to: waiter.deadline)
            if lines.waiting.count >= lineLength(of: origin) {
                // The calls let in at the entrance are arriving: the line is long enough again.
                lines.starvedSince = nil
            } else if fromEntrance {
                noteProgress(of: origin, now: now)
            }
        }

        /// Takes a cancelled call out of the queue; returns its continuation, or `nil` when it is no longer waiting
        /// (admitted, or ended, already). It never held a slot, so nobody is admitted in its place; the line is
        /// shorter, so the entrance may let calls in (`pump`).
        mutating func withdraw(_ id: UInt64, at origin: Origin) -> Continuation? {
            guard let continuation = origins[origin]?.lines?.waiting.withdraw(id) else { return nil }
            counts.waiting.subtract(1, ordering: .relaxed)
            dropIfUnused(origin)
            return continuation
        }

        /// Gives back a slot of `origin`: the next waiter takes it, and is returned to be resumed.
        mutating func release(_ origin: Origin) -> Continuation? {
            guard let next = origins[origin]?.release() else {
                dropIfUnused(origin)
                return nil
            }
            counts.waiting.subtract(1, ordering: .relaxed)
            dropIfUnused(origin)
            return next
        }

        // MARK: The entrance

        /// Whether a `Client`'s call to `origin` may go on into its chain of frames now: nobody waits at the entrance
        /// before it, and the line for slots holds fewer than `lineLength` calls (the limit and 128 more), so that the
        /// call's chain of frames waits deep down only in a short line. Otherwise it waits at the entrance
        /// (`parkAtEntrance`), where it costs a few words.
        func mayPass(_ origin: Origin) -> Bool {
            guard let lines = origins[origin]?.lines else { return true }
            return lines.entrance.count == 0 && lines.waiting.count < lineLength(of: origin)
        }

        /// How many calls the line for `origin`'s slots holds before more wait at the entrance: the limit and 128 more.
        /// At ordinary concurrency no call waits at the entrance, where waiting a second time costs a few µs of CPU;
        /// in a burst of thousands, the line does not run dry while calls let in are on their way (a resumed call
        /// waits for a pool thread, then runs its hooks and middleware). A hundred deep frames cost about 1 MiB;
        /// 10,000 cost 140.
        func lineLength(of origin: Origin) -> Int {
            let limit = limit(of: origin)
            return limit > Int.max - Self.lineBeyondLimit ? Int.max : limit + Self.lineBeyondLimit
        }

        /// How many calls the line holds beyond the limit (see `lineLength`).
        static let lineBeyondLimit = 128

        /// Queues a call at the entrance; it is resumed with `nil` when it may go on (`pump`), or with its timeout.
        mutating func parkAtEntrance(_ waiter: Waiter, at origin: Origin, now: ContinuousClock.Instant) {
            lines(of: origin).entrance.append(waiter)
            counts.entrance.add(1, ordering: .relaxed)
            lowerEarliestDeadline(to: waiter.deadline)
            noteStarvation(of: origin, now: now)
        }

        /// Takes a cancelled call out of the entrance's line; returns its continuation, or `nil` when it is no longer
        /// waiting there.
        mutating func withdrawFromEntrance(_ id: UInt64, at origin: Origin) -> Continuation? {
            guard let continuation = origins[origin]?.lines?.entrance.withdraw(id) else { return nil }
            counts.entrance.subtract(1, ordering: .relaxed)
            noteStarvation(of: origin, now: .now)
            dropIfUnused(origin)
            return continuation
        }

        /// Lets up to `places` calls in at `origin`'s entrance while its line for slots is shorter than its length:
        /// called with the places freed whenever that line shortens, and with one when a call ends (a call let in
        /// that never reached the line, answered by a cache or failed in a middleware, gives its place back so). The
        /// calls let in are appended to `resumed`, to be resumed with `nil`.
        ///
        /// The calls already let in and on their way are not counted: a few more may go in than the line needs,
        /// which costs some memory and never a stall. Only the places freed are filled, so that calls let in that
        /// never come (they wait in a middleware) do not make every event let in a whole line more.
        mutating func pump(
            _ origin: Origin, now: ContinuousClock.Instant, places: Int = 1, into resumed: inout [Continuation]
        ) {
            guard entranceWaitingCount > 0, let lines = origins[origin]?.lines, lines.entrance.count > 0 else { return }
            let length = lineLength(of: origin)
            var letIn = 0
            while letIn < places, lines.waiting.count + letIn < length, let next = lines.entrance.popFirst() {
                resumed.append(next)
                letIn += 1
            }
            counts.entrance.subtract(letIn, ordering: .relaxed)
            noteStarvation(of: origin, now: now)
            dropIfUnused(origin)
        }

        /// Notes that a call let in at `origin`'s entrance reached the line for slots, or ended: the calls let in are
        /// moving, so a starvation counts from now. Only calls let in that do not come (they wait in a middleware for
        /// a later call) make an entrance starve for `starvationLimit`; calls already in the line ending do not
        /// count, since they end whether or not the calls let in are stuck.
        mutating func noteProgress(of origin: Origin, now: ContinuousClock.Instant) {
            guard let lines = origins[origin]?.lines, lines.starvedSince != nil else { return }
            lines.starvedSince = now
        }

        /// Starts, or ends, `origin`'s starvation: calls wait at its entrance while its line for slots is short.
        private mutating func noteStarvation(of origin: Origin, now: ContinuousClock.Instant) {
            guard let lines = origins[origin]?.lines else { return }
            if lines.entrance.count > 0, lines.waiting.count < lineLength(of: origin) {
                guard lines.starvedSince == nil else { return }
                lines.starvedSince = now
                if earliestStarvation.map({ now < $0 }) ?? true { earliestStarvation = now }
            } else {
                lines.starvedSince = nil
            }
        }

        // MARK: Deadlines and shutdown

        /// Takes out the waiters whose deadline has come, in both lines, with their timeout; lets every call in at
        /// an entrance that has starved for `starvationLimit`, with `nil`.
        mutating func expire(now: ContinuousClock.Instant) -> [(Continuation, NALError?)] {
            guard let next = nextCheck, next <= now else { return [] }
            var expired: [(Continuation, NALError?)] = []
            var earliestLeft: ContinuousClock.Instant?
            var starvedLeft: ContinuousClock.Instant?
            for origin in Array(origins.keys) {
                guard let lines = origins[origin]?.lines else { continue }
                let waitingBefore = lines.waiting.count
                let entranceBefore = lines.entrance.count
                lines.waiting.expire(now: now, earliestLeft: &earliestLeft, into: &expired)
                if let since = lines.starvedSince, since + Self.starvationLimit <= now {
                    // Those whose deadline has come end with their timeout; the others go in, and wait no more.
                    var flushed: ContinuousClock.Instant?
                    lines.entrance.expire(now: now, earliestLeft: &flushed, into: &expired)
                    var letIn: [Continuation] = []
                    lines.entrance.removeAll(into: &letIn)
                    expired += letIn.map { ($0, nil) }
                    lines.starvedSince = nil
                } else {
                    lines.entrance.expire(now: now, earliestLeft: &earliestLeft, into: &expired)
                }
                counts.waiting.subtract(waitingBefore - lines.waiting.count, ordering: .relaxed)
                counts.entrance.subtract(entranceBefore - lines.entrance.count, ordering: .relaxed)
                // Each call that left the line at its deadline frees its place.
                var letIn: [Continuation] = []
                pump(origin, now: now, places: waitingBefore - lines.waiting.count, into: &letIn)
                expired += letIn.map { ($0, nil) }
                if let since = lines.starvedSince, starvedLeft.map({ since < $0 }) ?? true { starvedLeft = since }
                dropIfUnused(origin)
            }
            earliestDeadline = earliestLeft
            earliestStarvation = starvedLeft
            return expired
        }

        /// Takes out every waiter, in both lines (the transport shuts down); their continuations are returned.
        mutating func removeAllWaiters() -> [Continuation] {
            var waiters: [Continuation] = []
            for origin in Array(origins.keys) {
                guard let lines = origins[origin]?.lines else { continue }
                lines.waiting.removeAll(into: &waiters)
                lines.entrance.removeAll(into: &waiters)
                lines.starvedSince = nil
                dropIfUnused(origin)
            }
            counts.waiting.store(0, ordering: .relaxed)
            counts.entrance.store(0, ordering: .relaxed)
            earliestDeadline = nil
            earliestStarvation = nil
            return waiters
        }

        /// `origin`'s lines, made on first use.
        private mutating func lines(of origin: Origin) -> Lines {
            if let lines = origins[origin]?.lines { return lines }
            let lines = Lines()
            origins[origin, default: Slots()].lines = lines
            return lines
        }

        private mutating func lowerEarliestDeadline(to deadline: ContinuousClock.Instant) {
            if earliestDeadline.map({ deadline < $0 }) ?? true { earliestDeadline = deadline }
        }

        /// Forgets an origin with no call admitted or waiting, so that a program that calls many hosts does not
        /// keep an entry for each.
        private mutating func dropIfUnused(_ origin: Origin) {
            guard let slots = origins[origin], slots.isUnused else { return }
            origins[origin] = nil
        }
    }

    extension CurlAdmission.Slots {
        /// Takes a slot when one is free and nobody waits.
        mutating func enter(limit: Int) -> Bool {
            guard lines?.waiting.count ?? 0 == 0, admitted < limit else { return false }
            admitted += 1
            return true
        }

        /// The slot goes to the first waiter still waiting, whose continuation is returned; or it is freed.
        mutating func release() -> CurlAdmission.Continuation? {
            if let next = lines?.waiting.popFirst() { return next }
            admitted -= 1
            return nil
        }
    }
#endif
