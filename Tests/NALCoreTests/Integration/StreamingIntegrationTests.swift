import Foundation
import NALCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Integration: streaming from httpbin", .enabled(if: HTTPBin.url != nil, HTTPBin.skipReason))
struct HTTPBinStreamingTests {
    struct Line: Decodable {
        let id: Int
        let url: String
    }

    @Test("/stream/20 as JSON lines: twenty values, ids 0 to 19")
    func jsonLines() async throws {
        let client = Client<TestEndpoint>(transport: TestTransports.make())
        var ids: [Int] = []
        for try await line in try await client.stream(HTTPBin.endpoint("stream/20")).jsonLines(of: Line.self) {
            ids.append(line.id)
            #expect(line.url.hasSuffix("/stream/20"))
        }
        #expect(ids == Array(0..<20))
    }

    @Test("/drip as chunks: the first byte arrives long before the last is sent")
    func drip() async throws {
        let client = Client<TestEndpoint>(transport: TestTransports.make())
        let clock = ContinuousClock()
        let start = clock.now
        let stream = try await client.stream(
            HTTPBin.endpoint(
                "drip",
                requestType: .parameters(
                    ["numbytes": 5, "duration": 2, "delay": 0], encoding: URLEncoding.queryString)))
        var arrivals: [Duration] = []
        var bytes = 0
        for try await chunk in stream {
            bytes += chunk.count
            arrivals.append(clock.now - start)
        }
        #expect(bytes == 5)
        // httpbin sends a byte every 0.4 s; a buffered body would arrive as one chunk after 2 s. When the bytes
        // arrive is the scheduler's (a loaded machine stalled the consumer for seconds, and all five came at once):
        // that they arrive before the rest is sent is checked without a clock, against the fault server's /gated.
        #expect(arrivals.count >= 2)
    }

    @Test("/stream-bytes arrives whole; /range arrives byte for byte as httpbin generates it")
    func streamBytes() async throws {
        let client = Client<TestEndpoint>(transport: TestTransports.make())
        // httpbin seeds Python's shared random generator per request, so two concurrent requests with one seed can
        // get different bytes: only the length of /stream-bytes is certain.
        var streamed = 0
        for try await chunk in try await client.stream(
            HTTPBin.endpoint(
                "stream-bytes/100000",
                requestType: .parameters(["seed": 7, "chunk_size": 4096], encoding: URLEncoding.queryString)))
        {
            streamed += chunk.count
        }
        #expect(streamed == 100_000)

        var ranged = Data()
        var chunks = 0
        for try await chunk in try await client.stream(
            HTTPBin.endpoint(
                "range/100000", requestType: .parameters(["chunk_size": 4096], encoding: URLEncoding.queryString)))
        {
            ranged.append(chunk)
            chunks += 1
        }
        #expect(ranged == Data((0..<100_000).map { UInt8(ascii: "a") + UInt8($0 % 26) }))
        #expect(chunks > 1)
    }

    @Test("a 404 fails before streaming, with the start of its body")
    func notFound() async throws {
        do {
            _ = try await Client<TestEndpoint>(transport: TestTransports.make()).stream(HTTPBin.endpoint("status/404"))
            Issue.record("a 404 was streamed")
        } catch {
            guard case .unacceptableStatusCode(let response) = error else {
                Issue.record("expected unacceptableStatusCode, got \(error)")
                return
            }
            #expect(response.statusCode == 404)
        }
    }
}

@Suite("Integration: a streamed body as it is sent", .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
struct GatedStreamTests {
    /// No clock: the server sends the first bytes and waits for the client to open a gate before sending the rest
    /// ("T"s instead, after 20 s, when nobody opened it). Only a stream that hands over the first bytes as they
    /// arrive lets the test open the gate in time.
    @Test("the first bytes arrive while the server still waits for the client to ask for the rest")
    func firstBytesBeforeTheRest() async throws {
        let key = FaultServer.probe()
        let client = Client<TestEndpoint>(transport: TestTransports.make())
        let stream = try await client.stream(
            FaultServer.endpoint("gated", query: ["key": .string(key), "first": 4, "rest": 4]))
        var body = Data()
        var opened = false
        for try await chunk in stream {
            body.append(chunk)
            if !opened {
                opened = true
                _ = try await client.request(FaultServer.endpoint("_open", query: ["key": .string(key)]))
            }
        }
        #expect(String(decoding: body, as: UTF8.self) == "aaaabbbb")
    }

    /// A stream held back for a slow consumer (CurlTransport pauses it; URLSession spills), then caught up with, must
    /// count idle time again: a server that then goes quiet hits the idle timeout, long before the gate's 20 s.
    @Test("after a consumer fell behind and caught up, a server that goes quiet still hits the idle timeout")
    func idleAfterAPause() async throws {
        let key = FaultServer.probe()
        let client = Client<TestEndpoint>(transport: TestTransports.make())
        let endpoint = FaultServer.endpoint(
            "gated", query: ["key": .string(key), "first": 4_000_000, "rest": 4], timeout: 1)
        let clock = ContinuousClock()
        var received = 0
        var failure: NALError?
        var quietSince = clock.now
        do {
            var iterator = try await client.stream(endpoint).makeAsyncIterator()
            // Behind: nothing read while the server sends 4 MB, four times the stream's bound.
            try await Task.sleep(for: .milliseconds(500))
            while let chunk = try await iterator.next() {
                received += chunk.count
                quietSince = clock.now
            }
        } catch let error as NALError {
            failure = error
        }
        #expect(received == 4_000_000, "the first part arrived whole before the server went quiet")
        guard case .timedOut(let timeout)? = failure else {
            Issue.record("expected the idle timeout, got \(String(describing: failure)) after \(received) bytes")
            return
        }
        #expect(timeout.limit == .idle)
        #expect(clock.now - quietSince < Timing.bound(.seconds(1)), "the idle timeout came late")
    }
}

@Suite("Integration: event streams and reconnection", .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
struct EventStreamIntegrationTests {
    static let quick = ReconnectionPolicy(initialDelay: .milliseconds(50), maximumDelay: .seconds(1))

    @Test("a drop mid-event: the reconnection carries Last-Event-ID, the cut event comes once, a 204 ends it")
    func resume() async throws {
        let key = FaultServer.probe()
        let client = Client<TestEndpoint>(transport: TestTransports.make())
        var events: [ServerSentEvent] = []
        let endpoint = FaultServer.endpoint("sse", query: ["script": "resume", "key": .string(key)])
        for try await event in client.serverSentEvents(endpoint, reconnect: Self.quick) { events.append(event) }
        #expect(events.map(\.data) == (1...5).map { "event \($0)" })
        #expect(events.map(\.lastEventID) == (1...5).map { "\($0)" })
        let journal = try await FaultServer.journal(probe: key)
        #expect(journal.map { $0.header("Last-Event-ID") } == [nil, "3", "5"])
        #expect(journal.allSatisfy { $0.header("Accept") == "text/event-stream" })
    }

    @Test("the server's retry: sets the wait before reconnecting")
    func retry() async throws {
        let key = FaultServer.probe()
        let client = Client<TestEndpoint>(transport: TestTransports.make())
        // The policy's own wait is 5 s; the server asks for 300 ms.
        let policy = ReconnectionPolicy(initialDelay: .seconds(5), maximumDelay: .seconds(10))
        var events: [ServerSentEvent] = []
        let endpoint = FaultServer.endpoint("sse", query: ["script": "retry", "retry_ms": 300, "key": .string(key)])
        for try await event in client.serverSentEvents(endpoint, reconnect: policy) { events.append(event) }
        #expect(events.map(\.data) == ["event 1", "event 2"])
        #expect(events.first?.retry == .milliseconds(300))
        let times = try await FaultServer.journal(probe: key).compactMap(\.at)
        #expect(times.count == 3)
        if times.count == 3 {
            #expect(times[1] - times[0] >= 0.3)
            #expect(times[1] - times[0] < 0.3 + Timing.slack.seconds)
            #expect(times[2] - times[1] < 0.3 + Timing.slack.seconds)
        }
    }

    @Test(
        "retry: 0 and a close on every connection, with a policy of no minimum: at most ten connections a second",
        .timeLimit(.minutes(1)))
    func reconnectionStorm() async throws {
        // Over CurlTransport the client opened 14,098 connections in 8 s, over URLSession 6,306.
        let key = FaultServer.probe()
        let client = Client<TestEndpoint>(transport: TestTransports.make())
        let policy = ReconnectionPolicy(initialDelay: .zero, maximumDelay: .zero, minimumDelay: .zero)
        let endpoint = FaultServer.endpoint("sse", query: ["script": "storm", "key": .string(key)])
        let clock = ContinuousClock()
        let start = clock.now
        var events = 0
        for try await event in client.serverSentEvents(endpoint, reconnect: policy) {
            #expect(event.data == "storm")
            events += 1
            // Past a second, and past the first event: a loaded machine can take a second to connect at all.
            if events >= 2, clock.now - start >= .seconds(1) { break }
        }
        let elapsed = clock.now - start
        let connections = try await FaultServer.journal(probe: key).count
        #expect(connections >= 2, "the stream never reconnected")
        // One connection, then one per 100 ms of the time that passed at most: a loaded machine makes fewer.
        #expect(
            connections <= Int((elapsed / ReconnectionPolicy.reconnectionFloor).rounded(.down)) + 1, "\(connections)")
    }

    @Test("a stream that never ends, left by its consumer: its connection is closed at once")
    func endlessCancelled() async throws {
        let key = FaultServer.probe()
        let client = Client<TestEndpoint>(transport: TestTransports.make())
        // Events 20 s apart: the close must come from leaving the loop, not from the next event failing to arrive.
        let endpoint = FaultServer.endpoint(
            "sse", query: ["script": "endless", "interval_ms": 20_000, "key": .string(key)])
        let serverPort = try #require(FaultServer.url?.port)
        let clock = ContinuousClock()
        var left = clock.now
        var clientPort: Int?
        var establishedWhileRead = false
        var watch: TCPTable.CloseWatch?
        for try await _ in try await client.stream(endpoint).serverSentEvents {
            clientPort = try await FaultServer.endlessStream(key: key).clientPort
            if let clientPort {
                establishedWhileRead =
                    TCPTable.establishedSocket(localPort: clientPort, remotePort: serverPort) != nil
                // FoundationNetworking's sockets are not closed on exec (Linux fact 28): a child process started
                // meanwhile (this suite's exit tests) keeps the connection open after URLSession closed it, so for
                // URLSession what is checked is that this process let go of it. CurlTransport's sockets are closed
                // on exec: the connection itself must close.
                watch = TCPTable.CloseWatch(
                    localPort: clientPort, remotePort: serverPort, byThisProcess: !TestTransports.isCurl)
            }
            // From the moment the loop is left: stopping the stream on the way out counts too.
            left = clock.now
            break
        }
        _ = try #require(clientPort, "the server never named the stream's client port")
        #expect(establishedWhileRead, "the TCP table never showed the stream's connection")
        // The close is read from this machine's TCP table and this process's descriptors, not from the server (a
        // busy Python server once took 3.5 s to notice it in CI), by a thread of its own (other tests can keep the
        // cooperative pool busy for seconds).
        let closedAt = try #require(await watch?.closed())
        let closedAfter = closedAt - left
        // Typically a few milliseconds. The bound leaves a loaded machine 1.3 s of stalls, and stays under the 2 s
        // that a cancellation put off to a timer would take (ThreadSanitizer's slowness gets its full slack).
        let bound = Timing.underThreadSanitizer ? Timing.bound(.milliseconds(200)) : .milliseconds(1500)
        #expect(closedAfter < bound, "closed \(closedAfter) after the loop was left")
        // And the server saw it: the connection is gone, not idle.
        var serverSawClose = false
        for _ in 0..<500 where !serverSawClose {
            try await Task.sleep(for: .milliseconds(20))
            serverSawClose = try await FaultServer.endlessStream(key: key).closedAt != nil
        }
        #expect(serverSawClose, "the server never saw the connection close")
    }

    @Test("a body that is not an event stream fails without reconnecting, with the start of the body")
    func notAnEventStream() async throws {
        let key = FaultServer.probe()
        let endpoint = FaultServer.endpoint("sse", query: ["script": "plain", "key": .string(key)])
        do {
            for try await _ in Client<TestEndpoint>(transport: TestTransports.make()).serverSentEvents(
                endpoint, reconnect: Self.quick)
            {}
            Issue.record("a text/plain body was read as events")
        } catch {
            guard case .decoding(let failure) = error else {
                Issue.record("expected a decoding error, got \(error)")
                return
            }
            #expect(failure.response.string() == "these are not events")
        }
        #expect(try await FaultServer.journal(probe: key).count == 1)
    }

    @Test("a refused status fails without reconnecting")
    func refusedStatus() async throws {
        let key = FaultServer.probe()
        let endpoint = FaultServer.endpoint("status/503", query: ["key": .string(key)])
        do {
            for try await _ in Client<TestEndpoint>(transport: TestTransports.make()).serverSentEvents(
                endpoint, reconnect: Self.quick)
            {}
            Issue.record("a 503 was read as events")
        } catch {
            guard case .unacceptableStatusCode(let response) = error else {
                Issue.record("expected unacceptableStatusCode, got \(error)")
                return
            }
            #expect(response.statusCode == 503)
        }
        #expect(try await FaultServer.journal(probe: key).count == 1)
    }

    @Test("a server that cannot be reached is retried with backoff, up to the policy's attempts")
    func unreachable() async throws {
        let policy = ReconnectionPolicy(initialDelay: .milliseconds(20), maximumDelay: .seconds(1), maximumAttempts: 3)
        // A port nothing listens on: connection refused at once.
        let endpoint = TestEndpoint(baseURL: URL(string: "http://127.0.0.1:9/sse") ?? TestEndpoint.exampleBase)
        let clock = ContinuousClock()
        let start = clock.now
        do {
            for try await _ in Client<TestEndpoint>(transport: TestTransports.make()).serverSentEvents(
                endpoint, reconnect: policy)
            {}
            Issue.record("an unreachable server ended normally")
        } catch {
            guard case .transport = error else {
                Issue.record("expected a transport error, got \(error)")
                return
            }
        }
        // Waits of 20, 200 and 400 ms between four attempts: backoff grows from at least 100 ms.
        #expect(clock.now - start >= .milliseconds(600))
    }

    /// URLSession keeps what is past 1 MiB on disk; CurlTransport pauses the transfer.
    @Test("what a slow consumer has not taken is held back: on disk, or by pausing the transfer")
    func backlogHeldBack() async throws {
        let stream = try await Client<TestEndpoint>(transport: TestTransports.make()).stream(
            FaultServer.endpoint("source/8000000"))
        var iterator = stream.makeAsyncIterator()
        var bytes = try await iterator.next()?.count ?? 0
        if TestTransports.isCurl {
            // The server could send it all in this time; the transfer waits at the bound instead.
            try await Task.sleep(for: .milliseconds(500))
            #expect(stream.body.waiting.disk == 0)
            #expect(stream.body.waiting.memory >= StreamedBody.defaultHighWater / 2)
        } else {
            for _ in 0..<150 where stream.body.waiting.disk == 0 { try await Task.sleep(for: .milliseconds(20)) }
            #expect(stream.body.waiting.disk > 0)
        }
        #expect(stream.body.waiting.memory <= StreamedBody.defaultHighWater + (1 << 20))
        while let chunk = try await iterator.next() { bytes += chunk.count }
        #expect(bytes == 8_000_000)
    }

    @Test("a server that goes quiet mid-stream hits the idle timeout between chunks")
    func idleBetweenChunks() async throws {
        let endpoint = FaultServer.endpoint(
            "sse", query: ["script": "endless", "interval_ms": 6000, "key": .string(FaultServer.probe())], timeout: 1.5)
        let clock = ContinuousClock()
        let start = clock.now
        var events = 0
        do {
            for try await _ in try await Client<TestEndpoint>(transport: TestTransports.make()).stream(endpoint)
                .serverSentEvents
            { events += 1 }
            Issue.record("an endless stream ended")
        } catch {
            guard case .timedOut(let failure) = error else {
                Issue.record("expected a timeout, got \(error)")
                return
            }
            #expect(failure.limit == .idle)
        }
        // The first event comes at once, the next after 6 s: the idle timeout (with room for a loaded machine to
        // delay the first event) ends the call between them.
        #expect(events == 1)
        #expect(clock.now - start < Timing.bound(.milliseconds(1500)))
    }
}

/// Streams of megabytes from a fast server to a slow consumer. They keep both cores and the disk busy, so they run
/// in the big transfers' pass of scripts/test.sh, away from the timing checks.
@Suite(
    "Integration: megabytes streamed to a slow consumer",
    .enabled(if: FaultServer.url != nil, FaultServer.skipReason),
    .enabled(if: TransferFiles.bigTransfersEnabled, TransferFiles.bigTransfersSkipReason))
struct HeavyStreamTests {
    @Test("a slow consumer of a fast server does not time out: waiting for it is not idleness")
    func slowConsumer() async throws {
        let client = Client<TestEndpoint>(transport: TestTransports.make())
        let endpoint = FaultServer.endpoint("source/8000000", timeout: 0.5)
        var bytes = 0
        var paused = false
        for try await chunk in try await client.stream(endpoint) {
            bytes += chunk.count
            if !paused {
                paused = true
                // Longer than the idle timeout while the server has everything ready to send.
                try await Task.sleep(for: .milliseconds(1500))
            }
        }
        #expect(bytes == 8_000_000)
    }

    @Test("a consumer that stalls holds back no other call: twenty calls finish while it sleeps")
    func stalledConsumerIsolated() async throws {
        // URLSession's sessions share one work queue on Linux: a stream that held back its callbacks for a slow
        // consumer would stall every call in the process (Linux fact 26). A stream spills instead. (URLSession's by
        // name: a client that names no transport uses CurlTransport on Linux, whose streams pause and never spill.)
        let client = Client<TestEndpoint>(transport: URLSessionTransport())
        let stream = try await client.stream(FaultServer.endpoint("source/8000000"))
        var iterator = stream.makeAsyncIterator()
        var bytes = try await iterator.next()?.count ?? 0
        let clock = ContinuousClock()
        let start = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask { _ = try await client.request(FaultServer.endpoint("echo")) }
            }
            try await group.waitForAll()
        }
        #expect(clock.now - start < Timing.bound(.milliseconds(500)))
        // Meanwhile the server's bytes kept coming, and what the consumer has not taken past 1 MiB is on disk.
        for _ in 0..<100 where stream.body.waiting.disk == 0 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(stream.body.waiting.memory <= StreamedBody.defaultHighWater + (1 << 20))
        #expect(stream.body.waiting.disk > 0)
        while let chunk = try await iterator.next() { bytes += chunk.count }
        #expect(bytes == 8_000_000)
        #expect(stream.body.waiting == (0, 0))
    }
}

extension HeavyStreamTests {
    @Test("unread endless streams dropped at once: the drop returns at once and nothing piles up after it")
    func droppedUnreadStreams() async throws {
        // Two streams share a transport and one has its own: a URLSession stream has a session of its own, and all
        // share FoundationNetworking's work queue. Over URLSession, a dropped stream's task took a second or more to
        // cancel while its server went on sending into a delegate queue that the cancellation held, and the drop
        // closed gigabytes of spill files on the dropping thread: three streams took the process from 80 MB to
        // 461 MB, ten blocked the dropping task for 70 s.
        //
        // In a child process, as the tests below: resident memory is the process's, and what earlier tests left in
        // FoundationNetworking's shared state is not this test's subject. In a process that many tests had used, CI
        // saw one of these URLSession streams stop at 320 KiB, and on the rerun one wait 60 s for its head.
        var output: [UInt8]?
        await inChildProcess {
            let result = await #expect(
                processExitsWith: .success, observing: [\.standardOutputContent, \.standardErrorContent]
            ) {
                let endless = FaultServer.endpoint("chunked", query: ["total": 1_000_000_000_000, "chunk": 65536])
                // A first stream filled and dropped, unmeasured: the threads and heap arenas that a drop's
                // cancellation needs are made once, as in a process that has run a while. (A CI rehearsal's fresh
                // child grew by 98 MiB once, under the heavy pass's load; the rerun passed. Not reproduced here.)
                if let warmUp = try? await Client<TestEndpoint>(transport: TestTransports.make()).stream(endless) {
                    for _ in 0..<500 where warmUp.body.waiting.memory < StreamedBody.defaultHighWater {
                        try? await Task.sleep(for: .milliseconds(10))
                    }
                }
                try? await Task.sleep(for: .seconds(1))
                let shared = TestTransports.make()
                var streams: [ResponseStream] = []
                for index in 0..<3 {
                    let client = Client<TestEndpoint>(transport: index < 2 ? shared : TestTransports.make())
                    do {
                        streams.append(try await client.stream(endless))
                    } catch {
                        print("error stream \(index) did not open: \(error)")
                    }
                }
                // Every stream holds what its consumer has not read: at its bound in memory (a paused transfer), or
                // spilled.
                var filled = 0
                for stream in streams {
                    for _ in 0..<500 where stream.body.waiting.memory < StreamedBody.defaultHighWater {
                        try? await Task.sleep(for: .milliseconds(10))
                    }
                    if stream.body.waiting.memory >= StreamedBody.defaultHighWater { filled += 1 }
                }
                try? await Task.sleep(for: .seconds(1))
                let before = ResidentMemory.current()
                let peak = ResidentMemory.Peak()
                let sampler = Task { await peak.sample(every: .milliseconds(10)) }
                let clock = ContinuousClock()
                let start = clock.now
                streams.removeAll()
                let dropTook = clock.now - start
                try? await Task.sleep(for: .seconds(3))
                sampler.cancel()
                await sampler.value
                print("filled \(filled)")
                print("dropMicroseconds \(dropTook.microseconds)")
                print("grown \(peak.value - before)")
                exit(0)
            }
            output = result.map { $0.standardOutputContent + $0.standardErrorContent }
        }
        let report = ChildReport(output)
        #expect(report.errors.isEmpty, "\(report.text)")
        let filled = try #require(report["filled"], "\(report.text)")
        #expect(filled == 3, "\(filled) of 3 streams filled their bound")
        let dropTook = Duration.microseconds(try #require(report["dropMicroseconds"], "\(report.text)"))
        #expect(dropTook < Timing.bound(.milliseconds(200)), "dropping three streams took \(dropTook)")
        // What the three held is freed, not added to. The bound is a stream's stated memory (1 MiB of body and, over
        // URLSession, 512 queued callbacks of 16 KiB) twice over for each; the broken drop added hundreds of MiB.
        let grown = try #require(report["grown"], "\(report.text)")
        #expect(grown < 3 * 2 * (1 + 8) << 20, "RSS grew by \(grown >> 20) MiB after the drop")
    }
}

extension HeavyStreamTests {
    @Test("a gzip bomb past the in-memory limit fails, and memory stays flat after it")
    func bombCutAtItsLimit() async throws {
        // Over URLSession the call failed in 14 ms, but its cancellation waited for FoundationNetworking's work queue
        // on the delegate queue while the bomb went on inflating into it: the process grew to 4 GB over 20 s.
        // In a child process: resident memory is the process's, and what an earlier test left behind (CI once saw
        // 113 MiB here after the test above failed in the same process) is not this call's.
        var output: [UInt8]?
        await inChildProcess {
            let result = await #expect(
                processExitsWith: .success, observing: [\.standardOutputContent, \.standardErrorContent]
            ) {
                let client = Client<TestEndpoint>(transport: TestTransports.make())
                let before = ResidentMemory.current()
                let peak = ResidentMemory.Peak()
                let sampler = Task { await peak.sample(every: .milliseconds(10)) }
                do {
                    // 1 GiB of zeros, about 1 MB on the wire (the server compresses it once, in a few seconds).
                    _ = try await client.request(
                        FaultServer.endpoint("gzip-bomb", query: ["total": .int(1 << 30)]),
                        options: RequestOptions(maximumResponseSize: 1_000_000))
                    print("error a bomb past the limit was answered")
                } catch let error as NALError {
                    if case .responseTooLarge = error {} else { print("error expected responseTooLarge, got \(error)") }
                } catch {
                    print("error expected responseTooLarge, got \(error)")
                }
                try? await Task.sleep(for: .seconds(3))
                sampler.cancel()
                await sampler.value
                print("grown \(peak.value - before)")
                exit(0)
            }
            output = result.map { $0.standardOutputContent + $0.standardErrorContent }
        }
        let report = ChildReport(output)
        #expect(report.errors.isEmpty, "\(report.text)")
        let grown = try #require(report["grown"], "\(report.text)")
        #expect(grown < 64 << 20, "RSS grew by \(grown >> 20) MiB after the call ended")
    }
}

extension HeavyStreamTests {
    @Test("streams opened while a gzip bomb is cut at its limit open, and the next call answers, in seconds")
    func streamsBesideACutBomb() async throws {
        // Over URLSession every cancellation waits for the work queue that all sessions share, which the bomb keeps
        // busy inflating (2 to 7 s here). A cancellation made on the session's delegate queue held that queue
        // meanwhile, and the calls opened beside it waited for their whole idle timeout (30 s here). In a child
        // process, so that nothing of an earlier test's is in the work queue. The streams send an event every 50 ms:
        // endless, but they spill nothing worth the name while unread.
        var output: [UInt8]?
        await inChildProcess {
            let result = await #expect(
                processExitsWith: .success, observing: [\.standardOutputContent, \.standardErrorContent]
            ) {
                let bombEndpoint = FaultServer.endpoint("gzip-bomb", query: ["total": .int(1 << 30)])
                let limit = RequestOptions(maximumResponseSize: 1_000_000)
                // The server compresses its bomb on first use: a first call, on a transport of its own, waits for that.
                _ = try? await Client<TestEndpoint>(transport: TestTransports.make()).request(
                    bombEndpoint, options: limit)
                let bomb = Task { () -> String? in
                    do {
                        _ = try await Client<TestEndpoint>(transport: TestTransports.make()).request(
                            bombEndpoint, options: limit)
                        return "a bomb past the limit was answered"
                    } catch let error as NALError {
                        if case .responseTooLarge = error { return nil }
                        return "expected responseTooLarge, got \(error)"
                    } catch {
                        return "expected responseTooLarge, got \(error)"
                    }
                }
                let clock = ContinuousClock()
                let start = clock.now
                let client = Client<TestEndpoint>(transport: TestTransports.make(idleTimeout: 30))
                var streams: [ResponseStream] = []
                for index in 0..<3 {
                    let endless = FaultServer.endpoint("sse", query: ["script": "endless", "interval_ms": 50])
                    do {
                        streams.append(try await client.stream(endless))
                    } catch {
                        print("error stream \(index) did not open: \(error)")
                    }
                }
                print("openedSeconds \((clock.now - start).components.seconds)")
                if let problem = await bomb.value { print("error \(problem)") }
                streams.removeAll()
                let next = clock.now
                do {
                    _ = try await client.request(FaultServer.endpoint("echo"))
                } catch {
                    print("error the call after them failed: \(error)")
                }
                print("nextSeconds \((clock.now - next).components.seconds)")
                exit(0)
            }
            output = result.map { $0.standardOutputContent + $0.standardErrorContent }
        }
        let report = ChildReport(output)
        #expect(report.errors.isEmpty, "\(report.text)")
        // A call held up by a cancellation waits its 30 s; the bomb's work alone takes 2 to 7 s here.
        let opened = try #require(report["openedSeconds"], "\(report.text)")
        #expect(opened < 20, "opening three streams beside the bomb took \(opened) s")
        let next = try #require(report["nextSeconds"], "\(report.text)")
        #expect(next < 20, "the call after them took \(next) s")
    }
}

/// The resident memory of this process, from `/proc/self/status`.
enum ResidentMemory {
    /// Bytes of `field` (`VmRSS`, or `VmSize` for the address space mapped, touched or not), 0 where unknown.
    static func current(_ field: String = "VmRSS") -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("\(field):") {
            return (line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0) << 10
        }
        return 0
    }

    /// The most resident memory seen while sampling.
    final class Peak: @unchecked Sendable {
        private let lock = NSLock()
        private var highest = 0

        var value: Int { lock.withLock { highest } }

        /// Samples until the calling task is cancelled.
        func sample(every interval: Duration) async {
            while !Task.isCancelled {
                let now = ResidentMemory.current()
                lock.withLock { highest = max(highest, now) }
                try? await Task.sleep(for: interval)
            }
        }
    }
}

extension FaultServer {
    /// What the server knows of the endless event stream `key`.
    struct EndlessStream: Decodable {
        /// When the server saw the connection close, in seconds since the epoch.
        let closedAt: Double?
        /// The client's port of the stream's connection.
        let clientPort: Int?
    }

    static func endlessStream(key: String) async throws -> EndlessStream {
        guard let url else { return EndlessStream(closedAt: nil, clientPort: nil) }
        let (data, _) = try await URLSession.shared.data(
            from: url.appendingPathComponent("_sse_closed").appending(queryItems: [
                URLQueryItem(name: "key", value: key)
            ]))
        return try JSONDecoder().decode(EndlessStream.self, from: data)
    }
}

extension Duration {
    fileprivate var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }

    /// Whole microseconds, for a child process to print.
    fileprivate var microseconds: Int64 { components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000 }
}
