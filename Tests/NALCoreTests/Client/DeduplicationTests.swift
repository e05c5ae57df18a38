import Foundation
import NALCore
import NALLogging
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Answers with the body it was sent (from the request or from an upload) after a delay, and counts its calls.
final class EchoTransport: Transport {
    let delay: Duration
    private let state = Locked((calls: 0, cancelled: 0))

    init(delay: Duration) {
        self.delay = delay
    }

    var calls: Int { state.withLock { $0.calls } }
    var cancelledCalls: Int { state.withLock { $0.cancelled } }

    func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
        state.withLock { $0.calls += 1 }
        do {
            try await Task.sleep(for: delay)
        } catch {
            state.withLock { $0.cancelled += 1 }
            throw .cancelled
        }
        var body = request.httpBody ?? Data()
        if case .upload(.data(let data)) = context.kind { body = data }
        return try MemoryTransport.response(to: request, body: body)
    }
}

@Suite("De-duplication of identical concurrent requests")
struct DeduplicationTests {
    static func upload(_ text: String) -> TestEndpoint {
        TestEndpoint(path: "upload", method: .post, requestType: .uploadData(Data(text.utf8)))
    }

    @Test("ten identical calls make one transport call and all get its answer; without de-duplication, ten calls")
    func sharesOneCall() async throws {
        for deduplicates in [true, false] {
            let transport = EchoTransport(delay: .milliseconds(300))
            let client = Client<TestEndpoint>(
                transport: transport, deduplicatesRequests: deduplicates, deduplicatedMethods: [.post])
            let endpoint = TestEndpoint(path: "same", method: .post, requestType: .data(Data("shared".utf8)))
            let bodies = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<10 { group.addTask { try await client.request(endpoint).string() } }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(bodies == Array(repeating: "shared", count: 10))
            #expect(transport.calls == (deduplicates ? 1 : 10))
        }
    }

    @Test("calls that report progress are never shared: one caller's progress must not reach another")
    func progressIsNotShared() async throws {
        let transport = EchoTransport(delay: .milliseconds(200))
        let client = Client<TestEndpoint>(transport: transport, deduplicatesRequests: true)
        let endpoint = TestEndpoint(path: "same")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<3 {
                group.addTask { for try await _ in client.transfer(endpoint) {} }
            }
            try await group.waitForAll()
        }
        #expect(transport.calls == 3)
    }

    @Test("two uploads of different bytes to one URL are two calls, and each caller gets its own answer")
    func differentUploadsAreNotMerged() async throws {
        let transport = EchoTransport(delay: .milliseconds(200))
        let client = Client<TestEndpoint>(
            transport: transport, deduplicatesRequests: true, deduplicatedMethods: [.get, .post])
        async let first = client.request(Self.upload("AAA")).string()
        async let second = client.request(Self.upload("BBB")).string()
        #expect(try await [first, second] == ["AAA", "BBB"])
        #expect(transport.calls == 2)
    }

    @Test("identical uploads are shared, bytes or the same unchanged file; a changed file is another upload")
    func uploadsAreKeyedByTheirBody() async throws {
        let transport = EchoTransport(delay: .milliseconds(200))
        let client = Client<TestEndpoint>(
            transport: transport, deduplicatesRequests: true, deduplicatedMethods: [.get, .post])
        async let first = client.request(Self.upload("same"))
        async let second = client.request(Self.upload("same"))
        _ = try await (first, second)
        #expect(transport.calls == 1)

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nal-dedup-\(UUID().uuidString)")
        try Data("file".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fromFile = TestEndpoint(path: "upload", method: .post, requestType: .uploadFile(file))
        async let third = client.request(fromFile)
        async let fourth = client.request(fromFile)
        _ = try await (third, fourth)
        #expect(transport.calls == 2)

        // The same path with other contents (another size) is another body.
        let slow = Task { try await client.request(fromFile) }
        try await Task.sleep(for: .milliseconds(50))
        try Data("file, changed".utf8).write(to: file)
        async let changed = client.request(fromFile)
        _ = try await (slow.value, changed)
        #expect(transport.calls == 4)
    }

    @Test("requests that differ only in a header, the URL, the timeout or the in-memory limit are separate calls")
    func differentRequestsAreNotMerged() async throws {
        let transport = EchoTransport(delay: .milliseconds(300))
        let client = Client<TestEndpoint>(transport: transport, deduplicatesRequests: true)
        let base = TestEndpoint(path: "same")
        async let plain = client.request(base)
        async let header = client.request(TestEndpoint(path: "same", headers: ["X-Variant": "1"]))
        async let otherURL = client.request(TestEndpoint(path: "other"))
        // 60 s is also Foundation's default timeoutInterval: only the caller's own idle timeout tells them apart.
        async let timeout = client.request(TestEndpoint(path: "same", timeout: 60))
        async let limit = client.request(base, options: RequestOptions(maximumResponseSize: 1 << 20))
        let responses = try await [plain, header, otherURL, timeout, limit]
        #expect(transport.calls == 5)
        #expect(responses[1].request.value(forHTTPHeaderField: "X-Variant") == "1")
        #expect(responses[2].request.url?.path == "/v1/other")
    }

    @Test("a cancelled caller gets .cancelled at once; the other caller of the shared call gets its answer")
    func cancellingOneCaller() async throws {
        // A long shared call, so that "at once" and "after the shared call" stay far apart on a loaded machine.
        let transport = EchoTransport(delay: .seconds(8))
        let client = Client<TestEndpoint>(
            transport: transport, deduplicatesRequests: true, deduplicatedMethods: [.get, .post])
        let endpoint = TestEndpoint(path: "same", method: .post, requestType: .data(Data("kept".utf8)))
        let clock = ContinuousClock()
        let cancelled = Task { () async -> (NALError?, ContinuousClock.Instant) in
            do throws(NALError) {
                _ = try await client.request(endpoint)
                return (nil, clock.now)
            } catch {
                return (error, clock.now)
            }
        }
        let kept = Task { try await client.request(endpoint).string() }
        try await Task.sleep(for: .milliseconds(100))
        let cancelledAt = clock.now
        cancelled.cancel()
        let (error, endedAt) = await cancelled.value
        let cancelledAfter = endedAt - cancelledAt
        guard case .cancelled? = error else {
            Issue.record("the cancelled caller got \(String(describing: error))")
            return
        }
        // The shared call has 7.9 s left when the caller is cancelled.
        #expect(cancelledAfter < Timing.bound(.zero), "the cancelled caller waited \(cancelledAfter)")
        #expect(try await kept.value == "kept")
        #expect(transport.calls == 1)
        #expect(transport.cancelledCalls == 0)
    }

    @Test("cancelling every caller cancels the shared call; a new identical request then starts a fresh one")
    func cancellingEveryCaller() async throws {
        let transport = EchoTransport(delay: .seconds(30))
        let client = Client<TestEndpoint>(
            transport: transport, deduplicatesRequests: true, deduplicatedMethods: [.get, .post])
        let first = Task { try await client.request(TestEndpoint()) }
        let second = Task { try await client.request(TestEndpoint()) }
        try await Task.sleep(for: .milliseconds(100))
        first.cancel()
        second.cancel()
        for task in [first, second] {
            await #expect(throws: NALError.self) { _ = try await task.value }
        }
        try await Task.sleep(for: .milliseconds(50))
        #expect(transport.cancelledCalls == 1)

        let fresh = Client<TestEndpoint>(
            transport: FirstCallHangs(), deduplicatesRequests: true, deduplicatedMethods: [.get, .post])
        let abandoned = Task { try await fresh.request(TestEndpoint()) }
        try await Task.sleep(for: .milliseconds(50))
        abandoned.cancel()
        #expect(try await fresh.request(TestEndpoint()).statusCode == 200)
    }

    @Test("joining and leaving under load: every caller that stays gets the answer, every one that leaves .cancelled")
    func joinAndLeaveUnderLoad() async throws {
        let transport = EchoTransport(delay: .milliseconds(5))
        let client = Client<TestEndpoint>(
            transport: transport, deduplicatesRequests: true, deduplicatedMethods: [.get, .post])
        let endpoint = TestEndpoint(path: "busy", method: .post, requestType: .data(Data("ok".utf8)))
        for round in 0..<40 {
            let tasks = (0..<6).map { _ in Task { try await client.request(endpoint).string() } }
            try await Task.sleep(for: .microseconds(Int64(round % 7) * 700))
            let leaving = Set((0..<6).filter { ($0 + round) % 3 == 0 })
            for index in leaving { tasks[index].cancel() }
            for (index, task) in tasks.enumerated() {
                do {
                    let body = try await task.value
                    #expect(body == "ok")
                } catch {
                    #expect(
                        leaving.contains(index), "round \(round): caller \(index) was not cancelled but got \(error)")
                    guard case NALError.cancelled = error else {
                        Issue.record("round \(round): expected .cancelled, got \(error)")
                        continue
                    }
                }
            }
        }
    }
}

@Suite("De-duplication shares only safe methods by default")
struct DeduplicationMethodTests {
    @Test("20 concurrent identical POSTs are 20 calls by default; GETs are shared; POST can be opted in")
    func unsafeMethodsAreNotShared() async throws {
        // `nil`: the client's default, which shares only safe methods.
        for (method, methods, expected) in [
            (HTTPMethod.post, nil, 20), (.get, nil, 1), (.head, nil, 1), (.put, nil, 20), (.post, [.post], 1),
        ] as [(HTTPMethod, Set<HTTPMethod>?, Int)] {
            let transport = EchoTransport(delay: .milliseconds(300))
            let client =
                methods.map {
                    Client<TestEndpoint>(transport: transport, deduplicatesRequests: true, deduplicatedMethods: $0)
                } ?? Client<TestEndpoint>(transport: transport, deduplicatesRequests: true)
            let endpoint = TestEndpoint(path: "orders", method: method)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<20 { group.addTask { _ = try await client.request(endpoint) } }
                try await group.waitForAll()
            }
            #expect(transport.calls == expected, "\(method) with \(methods.map { "\($0)" } ?? "the default")")
        }
    }
}
