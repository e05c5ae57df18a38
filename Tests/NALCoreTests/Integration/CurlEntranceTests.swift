#if os(Linux)
    import Foundation
    import FoundationNetworking
    import NALCore
    import NALTestSupport
    import Synchronization
    import Testing

    /// Past an origin's line for slots (129 calls for one connection), a `Client`'s calls over CurlTransport wait at
    /// its entrance, before their chain of frames exists (`CallEntrance`): they end there when cancelled, timed out or
    /// shut down, and the entrance never stalls calls whose predecessors went in and never reached the transport.
    extension CurlAdmissionTests {
        /// The line for one slot: the limit and 128 more (`CurlAdmission.lineLength`).
        static let lineForOneSlot = 129

        /// Why the tests of the entrance's starvation clock do not run under ThreadSanitizer: their calls move 0.2 to
        /// 0.3 s apart, inside the 1 s starvation limit, and the whole suite's load there slows everything severalfold.
        static let tooTightUnderThreadSanitizer: Comment = "0.2 to 0.3 s steps inside the 1 s starvation limit"

        /// The idle timeout of the calls that must not time out: a line of hundreds through one connection takes
        /// more than 30 s under ThreadSanitizer, which slows every thread several times over.
        static let lineTimeout: TimeInterval = Timing.underThreadSanitizer ? 300 : 30

        /// A transport of one connection whose slot a blocker holds (until `open(key)`) and whose line for it is full.
        /// `bare`: the blocker and the line are calls straight to the transport, which never passed the entrance, so
        /// that their ends do not let anyone in there (a `Client` call's end does); `willSend` is not theirs then.
        func fullLine(
            bare: Bool = false, willSend: Client<TestEndpoint>.RequestHook? = nil
        ) async throws -> (
            transport: CurlTransport, client: Client<TestEndpoint>, key: String, blocker: Task<String, Never>,
            line: [Task<String, Never>]
        ) {
            let transport = try CurlTransport(maximumConnectionsPerHost: 1)
            let client = Client<TestEndpoint>(transport: transport, willSend: willSend)
            let key = FaultServer.probe()
            func send(_ endpoint: TestEndpoint) -> Task<String, Never> {
                guard bare else { return call(client, endpoint) }
                return Task { () -> String in
                    do {
                        _ = try await transport.send(
                            try endpoint.urlRequest(), context: TransportContext(endpoint: endpoint))
                        return "ok"
                    } catch {
                        return Self.describe(error)
                    }
                }
            }
            let blocker = send(blocker(key: key))
            try await waitUntil { transport.transfersInLibcurl == 1 }
            let line = (0..<Self.lineForOneSlot).map { _ in
                send(FaultServer.endpoint("fast", timeout: Self.lineTimeout))
            }
            try await waitUntil { transport.waitingCallCount == Self.lineForOneSlot }
            return (transport, client, key, blocker, line)
        }

        @Test("past the line for slots a Client's calls wait at the entrance, the line stays as long, and all succeed")
        func entranceHoldsCallsPastTheLine() async throws {
            let (transport, client, key, blocker, line) = try await fullLine()
            var entering: [Task<String, Never>] = []
            for index in 0..<5 {
                entering.append(call(client, FaultServer.endpoint("fast", timeout: Self.lineTimeout)))
                try await waitUntil { transport.entranceWaitingCount == index + 1 }
            }
            // Nobody went past the entrance into the line: it is as long as the one slot's line may be.
            #expect(transport.waitingCallCount == Self.lineForOneSlot)
            try await open(key)
            #expect(await blocker.value == "ok")
            for task in line + entering { #expect(await task.value == "ok") }
            #expect(transport.entranceWaitingCount == 0 && transport.waitingCallCount == 0)
            #expect(transport.peakTransfersInLibcurl == 1)
        }

        @Test("a call waiting at the entrance ends at once when cancelled, and at its idle or total timeout")
        func entranceWaitEnds() async throws {
            let (transport, client, key, blocker, line) = try await fullLine()
            let cancelled = call(client, FaultServer.endpoint("fast"))
            try await waitUntil { transport.entranceWaitingCount == 1 }
            let idle = call(client, FaultServer.endpoint("fast", timeout: 0.3))
            let total = call(client, FaultServer.endpoint("fast", totalTimeout: 0.4))
            try await waitUntil { transport.entranceWaitingCount == 3 }
            cancelled.cancel()
            #expect(await cancelled.value == "cancelled")
            #expect(await idle.value == "timed out (idle)")
            #expect(await total.value == "timed out (total)")
            // All three ended while the blocker still ran, at the entrance: the line was never theirs.
            #expect(transport.transfersInLibcurl == 1 && transport.entranceWaitingCount == 0)
            #expect(transport.waitingCallCount == Self.lineForOneSlot)
            try await open(key)
            #expect(await blocker.value == "ok")
            for task in line { #expect(await task.value == "ok") }
        }

        @Test("a call let in from the entrance into the line for slots waits there what is left of its idle timeout")
        func idleTimeoutSpansBothWaits() async throws {
            let (transport, client, key, blocker, line) = try await fullLine()
            let started = ContinuousClock.now
            let waiting = call(client, FaultServer.endpoint("fast", timeout: 9))
            try await waitUntil { transport.entranceWaitingCount == 1 }
            try await Task.sleep(for: .seconds(6))
            // A call leaves the line: the entrance lets the waiting call in, and it waits again for the slot.
            line[0].cancel()
            #expect(await waiting.value == "timed out (idle)")
            // 6 s at the entrance and what was left, 3 s, in the line: 9 s. A fresh idle timeout in the line would
            // have ended it at 15 s, past what a loaded machine adds (`Timing.slack`). (On a machine so loaded that
            // the call is let in after its idle timeout, it ends at the entrance at 9 s: right too.)
            let waited = ContinuousClock.now - started
            #expect(waited >= .seconds(9) && waited < Timing.bound(.seconds(9)), "ended after \(waited)")
            try await open(key)
            #expect(await blocker.value == "ok")
            for task in line.dropFirst() { #expect(await task.value == "ok") }
        }

        @Test("a call let in from the entrance and redirected waits in the next origin's line a whole idle timeout")
        func redirectWaitsAfresh() async throws {
            let (transport, client, key, blocker, line) = try await fullLine()
            // The redirect's origin (the same server, named localhost: another origin) has its only slot held too.
            let otherKey = FaultServer.probe()
            var otherBlocker = self.blocker(key: otherKey)
            otherBlocker.baseURL = try #require(URL(string: FaultServer.otherOrigin))
            let heldElsewhere = call(client, otherBlocker)
            try await waitUntil { transport.transfersInLibcurl == 2 }
            let redirected = call(
                client,
                FaultServer.endpoint(
                    "redirect", query: ["location": .string(FaultServer.otherOrigin + "/fast")], timeout: 10))
            try await waitUntil { transport.entranceWaitingCount == 1 }
            try await Task.sleep(for: .seconds(4))
            // In (with 6 s left of its idle timeout), and at once first in the line: the calls before it leave, and the blocker ends.
            line[0].cancel()
            try await waitUntil { transport.entranceWaitingCount == 0 }
            for task in line.dropFirst() { task.cancel() }
            try await open(key)
            #expect(await blocker.value == "ok")
            // The redirect waits in the other origin's line: a whole idle timeout (10 s) from now. Had it kept the
            // 4 s it waited at the entrance, it would have ended 6 s from now.
            try await waitUntil { transport.waitingCallCount == 1 && transport.transfersInLibcurl == 1 }
            try await Task.sleep(for: .seconds(7))
            try await open(otherKey)
            #expect(await heldElsewhere.value == "ok")
            #expect(await redirected.value == "ok")
            for task in line { _ = await task.value }
        }

        @Test("a call whose task was cancelled before it reached a full line's entrance ends there at once")
        func cancelledBeforeTheEntrance() async throws {
            let (transport, client, key, blocker, line) = try await fullLine()
            let ended = Gate()
            let cancelled = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                defer { ended.open() }
                do {
                    _ = try await client.request(FaultServer.endpoint("fast", timeout: Self.lineTimeout))
                    return "ok"
                } catch {
                    return Self.describe(error)
                }
            }
            // It ends while the blocker still holds the slot: it never waited at the entrance.
            try await waitUntil { ended.isOpen }
            #expect(await cancelled.value == "cancelled")
            #expect(transport.entranceWaitingCount == 0)
            try await open(key)
            #expect(await blocker.value == "ok")
            for task in line { #expect(await task.value == "ok") }
        }

        @Test("a transport call cancelled in the line for slots lets the first call at the entrance in")
        func cancelledTransportCallLetsTheEntranceIn() async throws {
            // The line's calls never passed the entrance, so none leaves it: only the cancellation lets a call in.
            let (transport, client, key, blocker, line) = try await fullLine(bare: true)
            let entering = call(client, FaultServer.endpoint("fast", timeout: Self.lineTimeout))
            try await waitUntil { transport.entranceWaitingCount == 1 }
            line[0].cancel()
            #expect(await line[0].value == "cancelled")
            // Its place goes to the call at the entrance, long before that call's idle timeout.
            try await waitUntil {
                transport.entranceWaitingCount == 0 && transport.waitingCallCount == Self.lineForOneSlot
            }
            try await open(key)
            #expect(await blocker.value == "ok")
            #expect(await entering.value == "ok")
            for task in line.dropFirst() { #expect(await task.value == "ok") }
        }

        @Test("a slot given back lets the first call at the entrance in, when no call's end does")
        func freedSlotLetsTheEntranceIn() async throws {
            // Bare calls hold the slot and fill the line: as they end, only the slots they give back can let the call
            // at the entrance in. Without that it would wait there until its idle timeout.
            let (transport, client, key, blocker, line) = try await fullLine(bare: true)
            let entering = call(client, FaultServer.endpoint("fast", timeout: Self.lineTimeout))
            try await waitUntil { transport.entranceWaitingCount == 1 }
            try await open(key)
            #expect(await blocker.value == "ok")
            // Let in as the blocker's slot comes back, long before its idle timeout.
            try await waitUntil { transport.entranceWaitingCount == 0 }
            #expect(await entering.value == "ok")
            for task in line { #expect(await task.value == "ok") }
        }

        @Test("shutdown() ends the calls waiting at the entrance with .cancelled")
        func shutdownEndsEntranceWaits() async throws {
            let (transport, client, _, blocker, line) = try await fullLine()
            let entering = (0..<3).map { _ in call(client, FaultServer.endpoint("fast")) }
            try await waitUntil { transport.entranceWaitingCount == 3 }
            await transport.shutdown()
            for task in entering { #expect(await task.value == "cancelled") }
            #expect(await blocker.value == "cancelled")
            for task in line { #expect(await task.value == "cancelled") }
            #expect(transport.entranceWaitingCount == 0 && transport.waitingCallCount == 0)
        }

        @Test("a call let in that ends before the transport (its hook failed) lets the next in as it ends")
        func callEndingBeforeTheTransportLetsTheNextIn() async throws {
            let (transport, client, key, blocker, line) = try await fullLine { request, _ in
                if request.url?.query?.contains("refused") == true { throw CancellationError() }
                return request
            }
            let refused = call(client, FaultServer.endpoint("fast", query: ["refused": 1], timeout: Self.lineTimeout))
            try await waitUntil { transport.entranceWaitingCount == 1 }
            let next = call(client, FaultServer.endpoint("fast", timeout: Self.lineTimeout))
            try await waitUntil { transport.entranceWaitingCount == 2 }
            // A call leaves the line: the refused call goes in, fails in its hook, and its end lets the next in.
            line[0].cancel()
            #expect(await refused.value == "cancelled")
            // By the time the refused call has returned, its end has let the next in (without it, only the entrance's
            // starvation would, a second later).
            #expect(transport.entranceWaitingCount == 0)
            try await open(key)
            #expect(await blocker.value == "ok")
            #expect(await next.value == "ok")
            for task in line.dropFirst() { #expect(await task.value == "ok") }
        }

        @Test(
            "calls let in that end before the transport, one every 0.2 s, keep the entrance from starving",
            .disabled(
                if: Timing.underThreadSanitizer,
                Self.tooTightUnderThreadSanitizer
            ))
        func endsOfCallsLetInAreProgress() async throws {
            // Each call marked "refused" takes 0.2 s in its hook and fails there: it never reaches the line, and its
            // end is all that shows the calls let in are moving. The line's calls are bare, so the entrance lets in
            // one call for each that ends.
            let (transport, client, key, blocker, line) = try await fullLine(bare: true) { request, _ in
                if request.url?.query?.contains("refused") == true {
                    try await Task.sleep(for: .milliseconds(200))
                    throw CancellationError()
                }
                return request
            }
            var refused: [Task<String, Never>] = []
            for index in 0..<8 {
                refused.append(
                    call(client, FaultServer.endpoint("fast", query: ["refused": 1], timeout: Self.lineTimeout)))
                try await waitUntil { transport.entranceWaitingCount == index + 1 }
            }
            let later = (0..<3).map { _ in call(client, FaultServer.endpoint("fast", timeout: Self.lineTimeout)) }
            try await waitUntil { transport.entranceWaitingCount == 11 }
            line[0].cancel()
            // The refused calls go in one at a time, 0.2 s apart (1.6 s in all: 0.8 s of slack for a loaded pool in
            // each step); the last one's end lets the first later call in, which fills the line. No second passed
            // without an end, so the two other later calls still wait. (Had the ends not counted, the entrance would
            // have starved a second after the line shortened, and let all of them in.)
            for task in refused { #expect(await task.value == "cancelled") }
            try await waitUntil { transport.waitingCallCount == Self.lineForOneSlot }
            #expect(transport.entranceWaitingCount == 2)
            try await open(key)
            #expect(await blocker.value == "ok")
            for task in later { #expect(await task.value == "ok") }
            for task in line.dropFirst() { #expect(await task.value == "ok") }
        }

        @Test(
            "calls let in that reach the line for slots one by one keep the entrance from starving",
            .disabled(
                if: Timing.underThreadSanitizer,
                Self.tooTightUnderThreadSanitizer
            ))
        func arrivalsOfCallsLetInAreProgress() async throws {
            // Five places free at once (bare calls leave the line, and their ends let nobody in); the five calls let in
            // reach the line 0.3 s apart (their hooks take that long), 1.5 s in all, and only the last fills it.
            let (transport, client, key, blocker, line) = try await fullLine(bare: true) { request, _ in
                if let query = request.url?.query, let range = query.range(of: "delay=") {
                    let tenths = Int(query[range.upperBound...].prefix { $0.isNumber }) ?? 0
                    try await Task.sleep(for: .milliseconds(100 * tenths))
                }
                return request
            }
            var slow: [Task<String, Never>] = []
            for (index, tenths) in [3, 6, 9, 12, 15].enumerated() {
                slow.append(
                    call(
                        client, FaultServer.endpoint("fast", query: ["delay": .int(tenths)], timeout: Self.lineTimeout)
                    ))
                try await waitUntil { transport.entranceWaitingCount == index + 1 }
            }
            let later = (0..<3).map { _ in call(client, FaultServer.endpoint("fast", timeout: Self.lineTimeout)) }
            try await waitUntil { transport.entranceWaitingCount == 8 }
            for task in line.prefix(5) { task.cancel() }
            try await waitUntil { transport.entranceWaitingCount == 3 }
            // Each arrival keeps the entrance from starving for a second more (0.7 s of slack in each step); the last
            // fills the line, and the later calls still wait. (Had arrivals not counted, the entrance would have
            // starved at 1 s and let all of them in.)
            try await waitUntil { transport.waitingCallCount == Self.lineForOneSlot }
            #expect(transport.entranceWaitingCount == 3)
            try await open(key)
            #expect(await blocker.value == "ok")
            for task in slow + later { #expect(await task.value == "ok") }
            for task in line.dropFirst(5) { #expect(await task.value == "ok") }
        }

        @Test("calls let in that never reach the transport do not stall the calls behind them at the entrance")
        func entranceNeverStalls() async throws {
            // The calls marked "stuck" wait in a hook, past the entrance, until the test has seen the last call end:
            // as a middleware would wait for a token that a later call fetches.
            let latch = Gate()
            let (transport, client, key, blocker, line) = try await fullLine { request, _ in
                if request.url?.query?.contains("stuck") == true { await latch.wait() }
                return request
            }
            // More than the line's draining lets in: one call for each place a call leaves, and one for each call
            // that ends.
            let stuckCount = 1000
            let stuck = (0..<stuckCount).map { _ in
                call(client, FaultServer.endpoint("fast", query: ["stuck": 1], timeout: Self.lineTimeout))
            }
            try await waitUntil { transport.entranceWaitingCount == stuckCount }
            let lastEnded = Gate()
            let last = Task {
                let outcome = await call(client, FaultServer.endpoint("fast", timeout: Self.lineTimeout)).value
                lastEnded.open()
                return outcome
            }
            try await waitUntil { transport.entranceWaitingCount == stuckCount + 1 }
            try await open(key)
            // The calls let in wait in the hook and never fill the line: after a second the entrance lets all in.
            var waited = 0
            while !lastEnded.isOpen, waited < 1000 {
                try await Task.sleep(for: .milliseconds(10))
                waited += 1
            }
            #expect(
                lastEnded.isOpen, "the last call stayed at the entrance behind calls that never reached the transport")
            // Cancelled, a call still waiting at the entrance ends, and the test with it.
            last.cancel()
            latch.open()
            #expect(await blocker.value == "ok")
            for task in line + stuck + [last] { #expect(await task.value == "ok") }
            #expect(transport.entranceWaitingCount == 0 && transport.waitingCallCount == 0)
        }
    }
#endif
