import Foundation
import NALCore
import NALLogging
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a careless caller or a hostile server does to a stream: two loops on one stream, items after an overlong
/// one, durations no clock can sleep, event IDs no header can carry.
@Suite("Streaming misuse: readers, overlong items, huge durations, unsendable IDs")
struct StreamingMisuseTests {
    static func text(_ chunk: Data) -> String { String(decoding: chunk, as: UTF8.self) }

    @Test("a second loop started while the first is busy in its body fails at once; the first gets every chunk")
    func secondReaderWhileFirstIsBusy() async throws {
        let transport = ScriptedStreamTransport(
            headers: ["Content-Type": "text/plain"], chunks: (0..<10).map { Data("c\($0);".utf8) },
            interval: .milliseconds(20))
        let stream = try await Client<TestEndpoint>(transport: transport).stream(TestEndpoint())
        let (firstRead, read) = AsyncStream<Void>.makeStream()
        let first = Task { () throws(NALError) -> [String] in
            var received: [String] = []
            for try await chunk in stream {
                received.append(Self.text(chunk))
                read.yield()
                // Busy with each chunk: the second loop comes while this one is not waiting.
                try? await Task.sleep(for: .milliseconds(50))
            }
            return received
        }
        var reads = firstRead.makeAsyncIterator()
        await reads.next()
        do {
            for try await chunk in stream { Issue.record("the second loop got \(Self.text(chunk))") }
            Issue.record("the second loop ended without an error")
        } catch {
            guard case .streamAlreadyBeingRead = error else {
                Issue.record("expected streamAlreadyBeingRead, got \(error)")
                return
            }
        }
        #expect(try await first.value == (0..<10).map { "c\($0);" })
    }

    @Test("an iterator made and dropped without reading stops nothing")
    func unusedIteratorDropped() async throws {
        let transport = ScriptedStreamTransport(
            headers: ["Content-Type": "text/plain"], chunks: (0..<5).map { Data("c\($0);".utf8) },
            interval: .milliseconds(10))
        let stream = try await Client<TestEndpoint>(transport: transport).stream(TestEndpoint())
        var received: [String] = []
        for try await chunk in stream {
            received.append(Self.text(chunk))
            let unused = stream.makeAsyncIterator()
            _ = unused
        }
        #expect(received == (0..<5).map { "c\($0);" })
        #expect(!transport.cancelled)
    }

    @Test("a kept head does not keep the transfer: dropping the stream still cancels it")
    func keptHeadDoesNotHoldTransfer() async throws {
        let transport = ScriptedStreamTransport(
            headers: ["Content-Type": "text/plain"], chunks: (0..<100).map { Data("c\($0);".utf8) },
            interval: .milliseconds(10))
        let client = Client<TestEndpoint>(transport: transport)
        var head: Response?
        do {
            let stream = try await client.stream(TestEndpoint())
            head = stream.response
        }
        #expect(head?.statusCode == 200)
        #expect(head?.streamedBody == nil)
        #expect(transport.cancelled)
    }

    /// Reads `sequence` to its end or error: what it delivered, and the error.
    static func drain<S: AsyncSequence>(_ sequence: S) async -> ([S.Element], (any Error)?) {
        var items: [S.Element] = []
        do {
            for try await item in sequence { items.append(item) }
            return (items, nil)
        } catch {
            return (items, error)
        }
    }

    static func isTooLarge(_ error: (any Error)?) -> Bool {
        guard case .responseTooLarge? = error as? NALError else { return false }
        return true
    }

    @Test("nothing after an overlong line, row or event is delivered, even from the same chunk")
    func nothingAfterOverlong() async throws {
        let lines = ScriptedStreamTransport(
            headers: ["Content-Type": "text/plain"],
            chunks: [Data(("first\n" + String(repeating: "x", count: 100) + "\nthird\n").utf8)])
        let (delivered, lineError) = await Self.drain(
            try await Client<TestEndpoint>(transport: lines).stream(TestEndpoint()).lines(maximumLineLength: 16))
        #expect(delivered == ["first"])
        #expect(Self.isTooLarge(lineError))

        struct Row: Decodable, Equatable { let n: Int }
        let rows = ScriptedStreamTransport(
            headers: ["Content-Type": "application/x-ndjson"],
            chunks: [Data("{\"n\":1}\n{\"n\":2,\"pad\":\"\(String(repeating: "p", count: 64))\"}\n{\"n\":3}\n".utf8)])
        let (values, rowError) = await Self.drain(
            try await Client<TestEndpoint>(transport: rows).stream(TestEndpoint())
                .jsonLines(of: Row.self, maximumLineLength: 32))
        #expect(values == [Row(n: 1)])
        #expect(Self.isTooLarge(rowError))

        let big = "data: " + String(repeating: "x", count: ServerSentEventParser.defaultMaximumEventSize + 1) + "\n\n"
        let events = ScriptedStreamTransport(chunks: [Data(("data: one\n\n" + big + "data: three\n\n").utf8)])
        let (received, eventError) = await Self.drain(
            try await Client<TestEndpoint>(transport: events).stream(TestEndpoint()).serverSentEvents)
        #expect(received.map(\.data) == ["one"])
        #expect(Self.isTooLarge(eventError))

        let source = Client<TestEndpoint>(transport: events).serverSentEvents(TestEndpoint(), reconnect: .never)
        let (reconnecting, sourceError) = await Self.drain(source)
        #expect(reconnecting.map(\.data) == ["one"])
        #expect(Self.isTooLarge(sourceError))
    }

    @Test("an event's retry too large for milliseconds is written saturated, not trapped on")
    func encodedHugeRetry() {
        var parser = ServerSentEventParser()
        let huge = ServerSentEvent(data: "x", retry: .seconds(Int64.max / 100))
        #expect(parser.parse(Data(huge.encoded.utf8)).first?.retry == .milliseconds(Int64.max))
        let negative = ServerSentEvent(data: "x", retry: .seconds(-Int64.max / 100))
        #expect(negative.encoded.contains("retry: 0\n"))
    }

    @Test("waits a clock cannot sleep are capped at a year, whatever the policy or the server says")
    func hugeDelays() {
        let year = Duration.seconds(365 * 24 * 3600)
        let policy = ReconnectionPolicy(initialDelay: .seconds(Int64.max), maximumDelay: .seconds(Int64.max))
        #expect(policy.delay(afterFailures: 1, serverRetry: nil) == year)
        #expect(policy.delay(afterFailures: 50, serverRetry: .seconds(Int64.max)) == year)
        var mutated = ReconnectionPolicy()
        mutated.maximumDelay = .seconds(Int64.max)
        mutated.multiplier = 1e300
        #expect(mutated.delay(afterFailures: 4, serverRetry: nil) == year)
        // A multiplier that is no number does not grow the wait.
        mutated.multiplier = .nan
        #expect(mutated.delay(afterFailures: 4, serverRetry: nil) == .seconds(1))
    }

    /// Answers each connection with the next script (the last repeats) and records the requests.
    final class ReconnectingTransport: Transport {
        let scripts: [String]
        let requests = Locked<[URLRequest]>([])

        init(_ scripts: [String]) {
            self.scripts = scripts
        }

        func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
            let index = requests.withLock { requests in
                requests.append(request)
                return requests.count - 1
            }
            guard let url = request.url,
                let head = HTTPURLResponse(
                    url: url, statusCode: 200, httpVersion: "HTTP/1.1",
                    headerFields: ["Content-Type": "text/event-stream"])
            else { throw .transport(URLError(.badURL)) }
            return Response(
                request: request, httpResponse: head, data: Data(),
                timing: ResponseTiming(start: Date(), duration: .zero),
                streamedBody: .complete(Data(scripts[min(index, scripts.count - 1)].utf8)))
        }
    }

    static let quick = ReconnectionPolicy(initialDelay: .milliseconds(1), maximumAttempts: 2, minimumDelay: .zero)

    @Test("a sequence resumed from an ID sends it on its first connection, with no-cache as browsers do")
    func resumedFromLastEventID() async throws {
        let transport = ReconnectingTransport(["data: next\n\n"])
        let (events, _) = await Self.drain(
            Client<TestEndpoint>(transport: transport).serverSentEvents(
                TestEndpoint(), reconnect: .never, lastEventID: "41"))
        #expect(events == [ServerSentEvent(data: "next", lastEventID: "41")])
        let first = transport.requests.withLock { $0.first }
        #expect(first?.value(forHTTPHeaderField: "Last-Event-ID") == "41")
        #expect(first?.value(forHTTPHeaderField: "Cache-Control") == "no-cache")
        #expect(first?.value(forHTTPHeaderField: "Accept") == "text/event-stream")
    }

    @Test("an event ID with a tab is sent as Last-Event-ID on reconnection")
    func lastEventIDWithTab() async throws {
        let transport = ReconnectingTransport(["id: a\tb\ndata: one\n\n", ""])
        let (events, _) = await Self.drain(
            Client<TestEndpoint>(transport: transport).serverSentEvents(TestEndpoint(), reconnect: Self.quick))
        #expect(events.map(\.data) == ["one"])
        let second = transport.requests.withLock { $0.dropFirst().first }
        #expect(second?.value(forHTTPHeaderField: "Last-Event-ID") == "a\tb")
    }

    @Test("a connection that delivered an event resets the count of failed attempts: only drops in a row end it")
    func deliveringConnectionsResetAttempts() async throws {
        let transport = ReconnectingTransport([
            "id: 1\ndata: one\n\n", "id: 2\ndata: two\n\n", "id: 3\ndata: three\n\n", "id: 4\ndata: four\n\n", "",
        ])
        let (events, error) = await Self.drain(
            Client<TestEndpoint>(transport: transport).serverSentEvents(TestEndpoint(), reconnect: Self.quick))
        #expect(events.map(\.data) == ["one", "two", "three", "four"])
        #expect(error == nil)
        #expect(transport.requests.withLock { $0.count } == 6, "four that delivered, then two empty ones in a row")
    }

    @Test("an idle timeout mid-stream reconnects; a total timeout ends the sequence with its error")
    func idleTimeoutReconnects() async throws {
        func run(_ limit: TimeoutFailure.Limit) async -> ([String], (any Error)?, Int) {
            let transport = ScriptedStreamTransport(
                chunks: [Data("data: one\n\n".utf8)],
                failure: .timedOut(TimeoutFailure(limit: limit, seconds: 1, url: nil)))
            var seen: [String] = []
            do {
                for try await event in Client<TestEndpoint>(transport: transport).serverSentEvents(
                    TestEndpoint(), reconnect: Self.quick)
                {
                    seen.append(event.data)
                    if seen.count == 3 { break }
                }
                return (seen, nil, transport.calls)
            } catch {
                return (seen, error, transport.calls)
            }
        }
        let (idleEvents, idleError, idleCalls) = await run(.idle)
        #expect(idleEvents == ["one", "one", "one"])
        #expect(idleError == nil)
        #expect(idleCalls == 3)
        let (totalEvents, totalError, totalCalls) = await run(.total)
        #expect(totalEvents == ["one"])
        guard case .timedOut(let failure)? = totalError as? NALError else {
            Issue.record("expected the total timeout, got \(String(describing: totalError))")
            return
        }
        #expect(failure.limit == .total)
        #expect(totalCalls == 1)
    }

    @Test("an event ID no header can carry ends the sequence with an error instead of a reconnection that replays")
    func unsendableLastEventID() async throws {
        let transport = ReconnectingTransport(["id: a\u{1}b\ndata: one\n\n"])
        let (events, error) = await Self.drain(
            Client<TestEndpoint>(transport: transport).serverSentEvents(TestEndpoint(), reconnect: Self.quick))
        #expect(events.map(\.data) == ["one"])
        #expect(transport.requests.withLock { $0.count } == 1)
        guard case .invalidRequest(.invalidHeaderValue(let name, _))? = error as? NALError else {
            Issue.record("expected invalidHeaderValue, got \(String(describing: error))")
            return
        }
        #expect(name == "Last-Event-ID")
    }
}
