#if os(Linux)
    import Foundation
    import FoundationNetworking
    import NALCore
    import NALTestSupport
    import Testing

    /// CurlTransport admits at most its per-host connection limit of plain-http transfers to one origin into libcurl;
    /// the other calls wait, holding no easy handle, first come first served, and each transfer that ends, however it
    /// ends, admits the next. A waiting call ends at once when cancelled, when the transport shuts down, or when it
    /// has waited its idle timeout.
    @Suite("CurlTransport: admission per origin", .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
    struct CurlAdmissionTests {
        /// The order in which calls ended.
        actor Order {
            var indices: [Int] = []
            func append(_ index: Int) { indices.append(index) }
        }

        /// Waits until `condition` holds, for at most about 10 s.
        func waitUntil(_ condition: () -> Bool) async throws {
            for _ in 0..<1000 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
            #expect(condition(), "waited 10 s for the transport to reach the state the test needs")
        }

        /// A call that holds its slot until `open(_:)`: the fault server sends 4 bytes, then waits for the key (20 s at
        /// most). Under load a timed blocker could end before the test has queued the calls behind it.
        func blocker(key: String) -> TestEndpoint {
            FaultServer.endpoint("gated", query: ["key": .string(key)])
        }

        /// Lets the blocker `key` finish, through a transport of its own (this one's slots are taken).
        func open(_ key: String) async throws {
            let opener = Client<TestEndpoint>(transport: try CurlTransport())
            _ = try await opener.request(FaultServer.endpoint("_open", query: ["key": .string(key)]))
        }

        /// A transport of one connection whose only slot a blocker holds (until `open(key)`), and a client on it.
        func heldBySlowCall() async throws -> (
            transport: CurlTransport, client: Client<TestEndpoint>, key: String, blocker: Task<String, Never>
        ) {
            let transport = try CurlTransport(maximumConnectionsPerHost: 1)
            let client = Client<TestEndpoint>(transport: transport)
            let key = FaultServer.probe()
            let blocker = call(client, blocker(key: key))
            try await waitUntil { transport.transfersInLibcurl == 1 }
            return (transport, client, key, blocker)
        }

        /// A task that calls `endpoint` and tells how it ended: "ok", or the error.
        func call(_ client: Client<TestEndpoint>, _ endpoint: TestEndpoint) -> Task<String, Never> {
            Task {
                do {
                    _ = try await client.request(endpoint)
                    return "ok"
                } catch {
                    return Self.describe(error)
                }
            }
        }

        static func describe(_ error: any Error) -> String {
            guard let error = error as? NALError else { return "\(error)" }
            return switch error {
            case .cancelled: "cancelled"
            case .timedOut(let failure): "timed out (\(failure.limit))"
            case .transportUnavailable: "unavailable"
            default: "\(error)"
            }
        }

        @Test(
            "no more transfers in libcurl than the per-host limit, however many calls wait, and they all succeed",
            arguments: [1, 2])
        func limitHolds(limit: Int) async throws {
            let transport = try CurlTransport(maximumConnectionsPerHost: limit)
            let client = Client<TestEndpoint>(transport: transport)
            let calls = (0..<(limit * 4)).map { _ in
                call(client, FaultServer.endpoint("delay", query: ["ms": 150]))
            }
            var outcomes: [String] = []
            for task in calls { outcomes.append(await task.value) }
            #expect(outcomes == Array(repeating: "ok", count: limit * 4))
            // Without the gate libcurl would hold every call's handle at once, queued behind the connections.
            #expect(transport.peakTransfersInLibcurl == limit)
            #expect(transport.waitingCallCount == 0)
            #expect(transport.transfersInLibcurl == 0)
        }

        @Test("waiting calls are admitted in the order they came")
        func firstComeFirstServed() async throws {
            let (transport, client, key, blocker) = try await heldBySlowCall()
            let order = Order()
            var waiting: [Task<Void, Never>] = []
            for index in 0..<5 {
                waiting.append(
                    Task {
                        _ = try? await client.request(FaultServer.endpoint("fast"))
                        await order.append(index)
                    })
                // One at a time into the queue, so that the order they came in is known.
                try await waitUntil { transport.waitingCallCount == index + 1 }
            }
            try await open(key)
            #expect(await blocker.value == "ok")
            for task in waiting { await task.value }
            #expect(await order.indices == [0, 1, 2, 3, 4])
            #expect(transport.peakTransfersInLibcurl == 1)
        }

        @Test("a waiting call that is cancelled ends at once with .cancelled, and the calls behind it still run")
        func cancelledWaitingCall() async throws {
            let (transport, client, key, blocker) = try await heldBySlowCall()
            let cancelled = call(client, FaultServer.endpoint("fast"))
            try await waitUntil { transport.waitingCallCount == 1 }
            // Its idle timeout bounds its wait: the slot the blocker gives back must reach it, past the cancelled call.
            let behind = call(client, FaultServer.endpoint("fast", timeout: 5))
            try await waitUntil { transport.waitingCallCount == 2 }
            cancelled.cancel()
            #expect(await cancelled.value == "cancelled")
            // It ended while the blocker still held the only slot: it did not wait for it.
            #expect(transport.transfersInLibcurl == 1 && transport.waitingCallCount == 1)
            try await open(key)
            #expect(await blocker.value == "ok")
            #expect(await behind.value == "ok")
            #expect(transport.waitingCallCount == 0 && transport.peakTransfersInLibcurl == 1)
            // The cancelled call took no slot with it: the transport still runs one call at a time, and runs it.
            #expect(await call(client, FaultServer.endpoint("fast")).value == "ok")
        }

        @Test("a running call that is cancelled gives its slot to the next waiting call")
        func cancelledRunningCall() async throws {
            let transport = try CurlTransport(maximumConnectionsPerHost: 1)
            let client = Client<TestEndpoint>(transport: transport)
            let running = call(client, FaultServer.endpoint("delay", query: ["ms": 20_000]))
            try await waitUntil { transport.transfersInLibcurl == 1 }
            // A timeout far below the running call's 20 s: it fails unless the cancellation admits it.
            let next = call(client, FaultServer.endpoint("fast", timeout: 5))
            try await waitUntil { transport.waitingCallCount == 1 }
            running.cancel()
            #expect(await running.value == "cancelled")
            #expect(await next.value == "ok")
        }

        @Test("a call that fails, or times out, gives its slot to the next waiting call")
        func failedCallFreesItsSlot() async throws {
            let transport = try CurlTransport(maximumConnectionsPerHost: 1)
            let client = Client<TestEndpoint>(transport: transport)
            // Each fails only after the test has queued a call behind it: by its idle timeout (3 s of a held gate), or
            // past its in-memory limit of 6 bytes once the gate opens (4 bytes, then 4 more).
            let timesOut = FaultServer.probe()
            let tooLarge = FaultServer.probe()
            let failing: [(String, TestEndpoint, RequestOptions, Bool)] = [
                (
                    timesOut, FaultServer.endpoint("gated", query: ["key": .string(timesOut)], timeout: 3), .init(),
                    false
                ),
                (tooLarge, blocker(key: tooLarge), RequestOptions(maximumResponseSize: 6), true),
            ]
            for (key, endpoint, options, opens) in failing {
                let failed = Task { () -> String in
                    do {
                        _ = try await client.request(endpoint, options: options)
                        return "ok"
                    } catch {
                        return Self.describe(error)
                    }
                }
                try await waitUntil { transport.transfersInLibcurl == 1 }
                // Waits for the failing call's slot; its own idle timeout is far longer than that call.
                let next = call(client, FaultServer.endpoint("fast", timeout: 10))
                try await waitUntil { transport.waitingCallCount == 1 }
                if opens { try await open(key) }
                let outcome = await failed.value
                #expect(outcome != "ok")
                #expect(await next.value == "ok", "the slot of a call that failed (\(outcome)) was not given back")
            }
            #expect(transport.waitingCallCount == 0 && transport.peakTransfersInLibcurl == 1)
        }

        @Test("a call waits for a slot no longer than its idle timeout, and a total timeout counts the wait")
        func waitingCallTimesOut() async throws {
            let (transport, client, key, blocker) = try await heldBySlowCall()
            let idle = call(client, FaultServer.endpoint("fast", timeout: 0.3))
            let total = call(client, FaultServer.endpoint("fast", totalTimeout: 0.4))
            #expect(await idle.value == "timed out (idle)")
            #expect(await total.value == "timed out (total)")
            // Both ended while the blocker still ran, and neither kept a place in the queue.
            #expect(transport.transfersInLibcurl == 1 && transport.waitingCallCount == 0)
            try await open(key)
            #expect(await blocker.value == "ok")
            #expect(await call(client, FaultServer.endpoint("fast")).value == "ok")
        }

        @Test("shutdown() ends the waiting calls with .cancelled, as it ends the running ones")
        func shutdownEndsWaitingCalls() async throws {
            let transport = try CurlTransport(maximumConnectionsPerHost: 1)
            let client = Client<TestEndpoint>(transport: transport)
            let running = call(client, FaultServer.endpoint("delay", query: ["ms": 20_000]))
            try await waitUntil { transport.transfersInLibcurl == 1 }
            let waiting = (0..<3).map { _ in call(client, FaultServer.endpoint("fast")) }
            try await waitUntil { transport.waitingCallCount == 3 }
            await transport.shutdown()
            #expect(await running.value == "cancelled")
            for task in waiting { #expect(await task.value == "cancelled") }
            #expect(transport.waitingCallCount == 0 && transport.eventLoopHasEnded)
            // A call made after the shutdown is refused as before.
            #expect(await call(client, FaultServer.endpoint("fast")).value == "unavailable")
        }
    }
#endif
