#if os(Linux)
    import Foundation
    @testable import NALCore
    import NALLogging
    import Testing

    /// `CurlAdmission`'s entrance: how long an origin's line for slots grows before calls wait at the entrance, in
    /// what order they go on, when they time out there, and how an entrance that starves lets everyone in.
    @Suite("CurlAdmission: the entrance")
    struct CurlEntranceUnitTests {
        /// An admission that the tasks waiting in it share. Behind `Locked`, not `Mutex`: ThreadSanitizer cannot see a
        /// contended `Mutex` hand over (Linux fact 14), and CI's pass reported a race on it.
        private final class Shared: Sendable {
            let admission = Locked(CurlAdmission(connectionsPerHost: 1))
        }

        private let origin = CurlAdmission.Origin(URL(fileURLWithPath: "/"))
        private let url = URL(fileURLWithPath: "/")
        private let start = ContinuousClock.now

        /// Parks a waiter (`id`) at the entrance, or in the line for slots, `offset` after `start`, in a task of its
        /// own, and returns once it waits; the task returns what the waiter was resumed with: "in", or its error.
        private func parked(
            _ shared: Shared, id: UInt64, atEntrance: Bool = true, deadline: Duration = .seconds(60),
            onDeadline: NALError? = nil, at offset: Duration = .zero, fromEntrance: Bool = false
        ) async -> Task<String, Never> {
            let waitingBefore = count(shared, atEntrance: atEntrance)
            let waiter = { (continuation: CurlAdmission.Continuation) in
                CurlAdmission.Waiter(
                    id: id, deadline: start + deadline, idleTimeout: .seconds(60), url: url, onDeadline: onDeadline,
                    continuation: continuation)
            }
            let task = Task { [origin, start] in
                let outcome = await withCheckedContinuation { continuation in
                    shared.admission.withLock { admission in
                        if atEntrance {
                            admission.parkAtEntrance(waiter(continuation), at: origin, now: start + offset)
                        } else {
                            admission.park(
                                waiter(continuation), at: origin, now: start + offset, fromEntrance: fromEntrance)
                        }
                    }
                }
                return outcome.map(Self.describe) ?? "in"
            }
            while count(shared, atEntrance: atEntrance) == waitingBefore { await Task.yield() }
            return task
        }

        private static func describe(_ error: NALError) -> String {
            switch error {
            case .cancelled: "cancelled"
            case .timedOut(let failure): "timed out (\(failure.limit))"
            default: "\(error)"
            }
        }

        private func count(_ shared: Shared, atEntrance: Bool) -> Int {
            shared.admission.withLock { atEntrance ? $0.entranceWaitingCount : $0.waitingCount }
        }

        /// The line for one connection's slot.
        private let length = 129

        @Test("the line for slots is the limit and 128 more, without overflow")
        func lineLength() throws {
            let http = try #require(URL(string: "http://example.com"))
            let https = try #require(URL(string: "https://example.com"))
            #expect(CurlAdmission(connectionsPerHost: 1).lineLength(of: .init(http)) == length)
            #expect(CurlAdmission(connectionsPerHost: 6).lineLength(of: .init(http)) == 134)
            #expect(CurlAdmission(connectionsPerHost: 6).lineLength(of: .init(https)) == 728)
            #expect(CurlAdmission(connectionsPerHost: .max).lineLength(of: .init(https)) == .max)
            #expect(CurlAdmission(connectionsPerHost: .max - 100).lineLength(of: .init(http)) == .max)
        }

        @Test("a call passes without a look at its line only while nobody waits at an entrance and no line is long")
        func passWithoutLook() {
            let counts = CurlAdmission.Counts()
            #expect(counts.passWithoutLook)
            counts.waiting.store(CurlAdmission.lineBeyondLimit, ordering: .relaxed)
            #expect(counts.passWithoutLook)
            counts.waiting.store(CurlAdmission.lineBeyondLimit + 1, ordering: .relaxed)
            #expect(!counts.passWithoutLook)
            counts.waiting.store(0, ordering: .relaxed)
            counts.entrance.store(1, ordering: .relaxed)
            #expect(!counts.passWithoutLook)
        }

        @Test("calls pass while the line is shorter than its length; past it, and behind a waiter, they wait")
        func mayPass() async {
            let shared = Shared()
            #expect(shared.admission.withLock { $0.mayPass(origin) })
            var line: [Task<String, Never>] = []
            for id in 1..<length { line.append(await parked(shared, id: UInt64(id), atEntrance: false)) }
            #expect(shared.admission.withLock { $0.mayPass(origin) })
            line.append(await parked(shared, id: UInt64(length), atEntrance: false))
            #expect(!shared.admission.withLock { $0.mayPass(origin) })
            // A full line lets nobody in, whatever places are offered.
            let waiting = await parked(shared, id: 1000)
            var resumed: [CurlAdmission.Continuation] = []
            shared.admission.withLock { $0.pump(origin, now: start, places: 5, into: &resumed) }
            #expect(resumed.isEmpty)
            // One fewer in the line, but a call waits at the entrance: the next waits behind it.
            _ = shared.admission.withLock { $0.withdraw(1, at: origin) }?.resume(returning: .cancelled)
            #expect(!shared.admission.withLock { $0.mayPass(origin) })
            for continuation in shared.admission.withLock({ $0.removeAllWaiters() }) {
                continuation.resume(returning: .cancelled)
            }
            // The entrance's waiter is taken out with the line's.
            #expect(await waiting.value == "cancelled")
            for task in line { _ = await task.value }
            #expect(shared.admission.withLock { $0.entranceWaitingCount == 0 && $0.mayPass(origin) })
        }

        @Test("as the line shortens the entrance lets calls in, first come first served, to fill it again")
        func pumpOrder() async {
            let shared = Shared()
            var line: [Task<String, Never>] = []
            for id in 1...length { line.append(await parked(shared, id: UInt64(id), atEntrance: false)) }
            let first = await parked(shared, id: 1001)
            let second = await parked(shared, id: 1002)
            let third = await parked(shared, id: 1003)
            let fourth = await parked(shared, id: 1004)
            // A slot given back admits the line's first; the line is one short, and the entrance's first goes in.
            var resumed: [CurlAdmission.Continuation] = []
            shared.admission.withLock { admission in
                if let next = admission.release(origin) { resumed.append(next) }
                admission.pump(origin, now: start, into: &resumed)
            }
            #expect(resumed.count == 2)
            for continuation in resumed { continuation.resume(returning: nil) }
            #expect(await line[0].value == "in")
            #expect(await first.value == "in")
            #expect(count(shared, atEntrance: true) == 3)
            // A cancelled waiter leaves the entrance; the one behind it goes in next.
            shared.admission.withLock { $0.withdrawFromEntrance(1002, at: origin) }?.resume(returning: .cancelled)
            #expect(await second.value == "cancelled")
            // Two places free, one filled: a pump fills only the places it is given.
            resumed = []
            shared.admission.withLock { admission in
                _ = admission.withdraw(2, at: origin)?.resume(returning: .cancelled)
                _ = admission.withdraw(3, at: origin)?.resume(returning: .cancelled)
                admission.pump(origin, now: start, into: &resumed)
            }
            #expect(resumed.count == 1)
            for continuation in resumed { continuation.resume(returning: nil) }
            #expect(await third.value == "in")
            #expect(count(shared, atEntrance: true) == 1)
            // Offered two places, the one call left goes in.
            resumed = []
            shared.admission.withLock { $0.pump(origin, now: start, places: 2, into: &resumed) }
            #expect(resumed.count == 1)
            for continuation in resumed { continuation.resume(returning: nil) }
            #expect(await fourth.value == "in")
            for continuation in shared.admission.withLock({ $0.removeAllWaiters() }) {
                continuation.resume(returning: .cancelled)
            }
            for task in line { _ = await task.value }
        }

        @Test("a call ends at the entrance at its deadline: with its total timeout when given, else its idle timeout")
        func entranceDeadlines() async throws {
            let shared = Shared()
            // The line is full, so that nobody is let in as the first two leave.
            var line: [Task<String, Never>] = []
            for id in 11..<(11 + length) { line.append(await parked(shared, id: UInt64(id), atEntrance: false)) }
            let total = NALError.timedOut(TimeoutFailure(limit: .total, seconds: 0.5, url: url))
            let byTotal = await parked(shared, id: 1, deadline: .milliseconds(500), onDeadline: total)
            let byIdle = await parked(shared, id: 2, deadline: .milliseconds(500))
            let later = await parked(shared, id: 3, deadline: .milliseconds(900))
            #expect(shared.admission.withLock { $0.nextCheck } == start + .milliseconds(500))
            #expect(shared.admission.withLock { $0.expire(now: start + .milliseconds(499)) }.isEmpty)
            let expired = shared.admission.withLock { $0.expire(now: start + .milliseconds(500)) }
            #expect(expired.count == 2)
            for (continuation, error) in expired { continuation.resume(returning: error) }
            #expect(await byTotal.value == "timed out (total)")
            #expect(await byIdle.value == "timed out (idle)")
            #expect(count(shared, atEntrance: true) == 1)
            for continuation in shared.admission.withLock({ $0.removeAllWaiters() }) {
                continuation.resume(returning: .cancelled)
            }
            #expect(await later.value == "cancelled")
            for task in line { _ = await task.value }
        }

        @Test("calls that leave the line for slots at their deadline free their places: the entrance lets as many in")
        func expiredPlacesLetCallsIn() async throws {
            let shared = Shared()
            var line: [Task<String, Never>] = []
            for id in 11..<(11 + length) {
                // The first two in the line give up at 0.5 s; the others wait on.
                let deadline: Duration = id < 13 ? .milliseconds(500) : .seconds(60)
                line.append(await parked(shared, id: UInt64(id), atEntrance: false, deadline: deadline))
            }
            var entering: [Task<String, Never>] = []
            for id in 1...3 { entering.append(await parked(shared, id: UInt64(id))) }
            let ended = shared.admission.withLock { $0.expire(now: start + .milliseconds(500)) }
            // The two timed out, and the first two at the entrance go in, in their order; the third waits.
            #expect(ended.count == 4)
            #expect(ended.filter { $0.1 == nil }.count == 2)
            for (continuation, error) in ended { continuation.resume(returning: error) }
            #expect(await entering[0].value == "in")
            #expect(await entering[1].value == "in")
            #expect(count(shared, atEntrance: true) == 1)
            for continuation in shared.admission.withLock({ $0.removeAllWaiters() }) {
                continuation.resume(returning: .cancelled)
            }
            #expect(await entering[2].value == "cancelled")
            for task in line { _ = await task.value }
        }

        @Test("an entrance whose line stays short, because the calls let in never came, lets every call in after 1 s")
        func starvation() async {
            let shared = Shared()
            // Nobody fills the line: the entrance starves from the moment its first call waits.
            var waiting: [Task<String, Never>] = []
            for id in 1...20 { waiting.append(await parked(shared, id: UInt64(id))) }
            #expect(CurlAdmission.starvationLimit == .seconds(1))
            #expect(shared.admission.withLock { $0.nextCheck } == start + .seconds(1))
            #expect(shared.admission.withLock { $0.expire(now: start + .milliseconds(999)) }.isEmpty)
            let letIn = shared.admission.withLock { $0.expire(now: start + .seconds(1)) }
            #expect(letIn.count == 20 && letIn.allSatisfy { $0.1 == nil })
            for (continuation, error) in letIn { continuation.resume(returning: error) }
            for task in waiting { #expect(await task.value == "in") }
            #expect(shared.admission.withLock { $0.entranceWaitingCount == 0 && $0.nextCheck == nil })
        }

        @Test("a call that drew its id before the last one to park is still found when cancelled, in either line")
        func outOfOrderIDs() async {
            let shared = Shared()
            // Ids are drawn before the lock that parks a call: 2 may park before 1.
            for atEntrance in [true, false] {
                let later = await parked(shared, id: 2, atEntrance: atEntrance)
                let earlier = await parked(shared, id: 1, atEntrance: atEntrance)
                for id: UInt64 in [1, 2] {
                    let found = shared.admission.withLock {
                        atEntrance ? $0.withdrawFromEntrance(id, at: origin) : $0.withdraw(id, at: origin)
                    }
                    #expect(found != nil, "\(atEntrance ? "entrance" : "line"): \(id) was not found")
                    found?.resume(returning: .cancelled)
                }
                #expect(await earlier.value == "cancelled")
                #expect(await later.value == "cancelled")
            }
            #expect(shared.admission.withLock { $0.entranceWaitingCount == 0 && $0.waitingCount == 0 })
        }

        @Test("a starvation counts from the last call let in that reached the line, not from other calls arriving")
        func starvationCountsFromProgress() async {
            let shared = Shared()
            let waiting = await parked(shared, id: 1000)
            // A call let in reaches the line after 0.9 s: the calls let in move, so the starvation counts from there.
            let arrived = await parked(shared, id: 1, atEntrance: false, at: .milliseconds(900), fromEntrance: true)
            #expect(shared.admission.withLock { $0.expire(now: start + .seconds(1)) }.isEmpty)
            // A call that never waited at the entrance arrives too: it says nothing of the calls let in.
            let other = await parked(shared, id: 2, atEntrance: false, at: .milliseconds(1500))
            #expect(shared.admission.withLock { $0.expire(now: start + .milliseconds(1899)) }.isEmpty)
            // A second after the last call let in arrived: every call waiting at the entrance goes in.
            let letIn = shared.admission.withLock { $0.expire(now: start + .milliseconds(1900)) }
            #expect(letIn.count == 1 && letIn.allSatisfy { $0.1 == nil })
            for (continuation, error) in letIn { continuation.resume(returning: error) }
            #expect(await waiting.value == "in")
            for continuation in shared.admission.withLock({ $0.removeAllWaiters() }) {
                continuation.resume(returning: .cancelled)
            }
            #expect(await arrived.value == "cancelled")
            #expect(await other.value == "cancelled")
        }

        @Test("a line that fills again ends the starvation: nobody is let in past it")
        func starvationEnds() async {
            let shared = Shared()
            let early = await parked(shared, id: 1)
            var line: [Task<String, Never>] = []
            for id in 2...(length + 1) { line.append(await parked(shared, id: UInt64(id), atEntrance: false)) }
            // The line is full again: at the starvation's end the entrance's call still waits.
            let expired = shared.admission.withLock { $0.expire(now: start + .seconds(1)) }
            #expect(expired.isEmpty)
            #expect(count(shared, atEntrance: true) == 1)
            for continuation in shared.admission.withLock({ $0.removeAllWaiters() }) {
                continuation.resume(returning: .cancelled)
            }
            #expect(await early.value == "cancelled")
            for task in line { _ = await task.value }
        }
    }
#endif
