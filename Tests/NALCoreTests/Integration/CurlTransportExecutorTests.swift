#if os(Linux)
    import Foundation
    import NALCore
    import NALLogging
    import Testing

    @Suite(
        "CurlTransport's executor: calls made from its event loop's thread stay there",
        .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
    struct CurlTransportExecutorTests {
        /// The thread this code runs on, as the kernel numbers it.
        static func threadID() -> String {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? "unknown"
        }

        /// The name of the thread this code runs on, as the kernel shows it: `nal.curl` for an event loop's.
        static func threadName() -> String {
            ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// The value `body` returns, or `nil` when it has not finished within `seconds`: a job the executor lost
        /// would otherwise hang the test run instead of failing it.
        static func finishing<T: Sendable>(
            within seconds: Int, _ body: @escaping @Sendable () async throws -> T
        ) async throws -> T? {
            let result = Locked<Result<T, any Error>?>(nil)
            let task = Task { () async in
                let outcome: Result<T, any Error>
                do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
                result.withLock { $0 = outcome }
            }
            for _ in 0..<(seconds * 100) {
                if let done = result.withLock({ $0 }) { return try done.get() }
                try await Task.sleep(for: .milliseconds(10))
            }
            task.cancel()
            return nil
        }

        @Test("a task that prefers the executor makes its calls, one after another and many at once, on the loop")
        func callsStayOnTheLoop() async throws {
            let transport = try CurlTransport()
            let client = Client<TestEndpoint>(transport: transport)
            let threads = try await Self.finishing(within: 30) {
                try await withTaskExecutorPreference(transport.executor) {
                    var seen: Set<String> = [Self.threadID()]
                    var names: Set<String> = [Self.threadName()]
                    for _ in 0..<20 {
                        let body = try await client.request(FaultServer.endpoint("fast")).string()
                        #expect(body == "fast")
                        seen.insert(Self.threadID())
                        names.insert(Self.threadName())
                    }
                    // Child tasks inherit the preference.
                    try await withThrowingTaskGroup(of: String.self) { group in
                        for _ in 0..<50 {
                            group.addTask { () async throws -> String in
                                let body = try await client.request(FaultServer.endpoint("fast")).string()
                                #expect(body == "fast")
                                return Self.threadID()
                            }
                        }
                        for try await thread in group { seen.insert(thread) }
                    }
                    return (seen, names)
                }
            }
            #expect(threads?.0.count == 1, "the calls ran on \(threads?.0.count ?? 0) threads, or did not finish")
            #expect(threads?.1 == ["nal.curl"], "the calls ran on \(threads?.1 ?? []), not the loop's thread")
            #expect(transport.transfersInLibcurl == 0)
        }

        /// A catalogue served by the fault server, for the documentation's example.
        enum Catalog: RemoteService {
            case page(Int)

            var baseURL: URL { FaultServer.url ?? URL(fileURLWithPath: "/") }
            var path: String { "fast" }
            var method: HTTPMethod { .get }
            var requestType: RequestType { .parameters(["page": .int(pageNumber)], encoding: URLEncoding.default) }
            var pageNumber: Int {
                switch self {
                case .page(let number): number
                }
            }
        }

        @Test("the Transports article's example: twenty calls at once, all made from the transport's thread")
        func documentedExample() async throws {
            let pages = try await Self.finishing(within: 30) {
                // Docs: begin curl-executor
                let transport = try CurlTransport()
                let client = Client<Catalog>(transport: transport)
                let pages = try await withTaskExecutorPreference(transport.executor) {
                    try await withThrowingTaskGroup(of: Data.self) { group in
                        for number in 1...20 {
                            group.addTask { try await client.request(.page(number)).data }
                        }
                        return try await group.reduce(into: []) { $0.append($1) }
                    }
                }
                // Docs: end curl-executor
                return pages
            }
            #expect(pages?.count == 20)
            #expect(pages?.allSatisfy { String(decoding: $0, as: UTF8.self) == "fast" } == true)
        }

        @Test("a call from one transport's loop over another transport comes back to the first loop")
        func callOverAnotherTransport() async throws {
            let home = try CurlTransport()
            let other = Client<TestEndpoint>(transport: try CurlTransport())
            let threads = try await Self.finishing(within: 30) {
                try await withTaskExecutorPreference(home.executor) {
                    let before = Self.threadID()
                    let body = try await other.request(FaultServer.endpoint("fast")).string()
                    return (before, Self.threadID(), body, Self.threadName())
                }
            }
            #expect(threads?.2 == "fast")
            #expect(threads?.0 == threads?.1)
            #expect(threads?.3 == "nal.curl")
        }

        @Test("from the loop, an idle timeout still ends a call, and a cancelled call ends at once")
        func timeoutsAndCancellation() async throws {
            let transport = try CurlTransport()
            let client = Client<TestEndpoint>(transport: transport)
            let outcome = try await Self.finishing(within: 30) {
                try await withTaskExecutorPreference(transport.executor) { () async throws -> (Bool, Duration) in
                    var timedOut = false
                    do {
                        _ = try await client.request(
                            FaultServer.endpoint("delay", query: ["ms": 3000]), options: RequestOptions(timeout: 0.3))
                    } catch let error as NALError {
                        if case .timedOut = error { timedOut = true }
                    }
                    // An unstructured task starts without the preference: it is given it.
                    let call = Task(executorPreference: transport.executor) {
                        #expect(Self.threadName() == "nal.curl")
                        return try await client.request(FaultServer.endpoint("delay", query: ["ms": 3000]))
                    }
                    try await Task.sleep(for: .milliseconds(100))
                    let cancelled = ContinuousClock.now
                    call.cancel()
                    _ = try? await call.value
                    return (timedOut, ContinuousClock.now - cancelled)
                }
            }
            #expect(outcome?.0 == true, "the 0.3 s idle timeout did not end the call")
            #expect((outcome?.1 ?? .seconds(99)) < .seconds(2), "the cancelled call did not end at once")
            #expect(transport.transfersInLibcurl == 0)
        }

        @Test("a body streamed to code on the loop arrives whole, the transfer paused while that code sleeps")
        func streamConsumedOnTheLoop() async throws {
            let transport = try CurlTransport()
            let client = Client<TestEndpoint>(transport: transport)
            let count = try await Self.finishing(within: 60) {
                try await withTaskExecutorPreference(transport.executor) {
                    let stream = try await client.stream(FaultServer.endpoint("source/4000000"))
                    var received = 0
                    var heldBack = false
                    for try await chunk in stream {
                        if received == 0 {
                            try await Task.sleep(for: .milliseconds(300))
                            // The server could have sent it all by now: the transfer waits at the bound instead.
                            heldBack = stream.body.waiting.memory <= StreamedBody.defaultHighWater + (1 << 20)
                        }
                        received += chunk.count
                    }
                    return (received, heldBack)
                }
            }
            #expect(count?.0 == 4_000_000)
            #expect(count?.1 == true, "the body was not held back while the code on the loop slept")
        }

        @Test("a task that keeps yielding on the loop does not keep a dropped transport's thread alive")
        func yieldingTaskDoesNotHoldTheLoop() async throws {
            var transport: CurlTransport? = try CurlTransport()
            guard let executor = transport?.executor else { return }
            let loopThread = try await Self.finishing(within: 10) {
                await withTaskExecutorPreference(executor) { Self.threadID() }
            }
            let stop = Locked(false)
            let spinner = Task(executorPreference: executor) {
                var turns = 0
                while !stop.withLock({ $0 }) {
                    turns += 1
                    await Task.yield()
                }
                return turns
            }
            transport = nil
            // The loop's thread ends at once, the spinner's jobs going to the global executor from then on.
            let taskFolder = "/proc/" + (loopThread ?? "none")
            for _ in 0..<500 where FileManager.default.fileExists(atPath: taskFolder) {
                try await Task.sleep(for: .milliseconds(10))
            }
            let threadEnded = !FileManager.default.fileExists(atPath: taskFolder)
            stop.withLock { $0 = true }
            let turns = try await Self.finishing(within: 10) { await spinner.value }
            #expect(loopThread != nil)
            #expect(threadEnded, "the loop's thread outlived its transport by 5 s while a task yielded on it")
            #expect((turns ?? 0) > 0, "the spinning task stopped running")
        }

        @Test("once its transport is gone and the loop has ended, work that prefers the executor runs elsewhere")
        func executorOutlivesTheLoop() async throws {
            var transport: CurlTransport? = try CurlTransport()
            guard let executor = transport?.executor else { return }
            let loopThread = try await Self.finishing(within: 10) {
                await withTaskExecutorPreference(executor) { Self.threadID() }
            }
            transport = nil
            // The loop ends at once; a job queued to it meanwhile still runs, on the loop or, after, elsewhere.
            var ranElsewhere = false
            for _ in 0..<100 where !ranElsewhere {
                let thread = try await Self.finishing(within: 10) {
                    await withTaskExecutorPreference(executor) { Self.threadID() }
                }
                #expect(thread != nil, "a job that prefers the executor of an ended loop never ran")
                guard let thread else { return }
                ranElsewhere = thread != loopThread
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(loopThread != nil)
            #expect(ranElsewhere)
        }
    }
#endif
