import Foundation
import NALCore
import NALLogging
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Client.stream: chunks, lines, events and JSON lines as they arrive")
struct ClientStreamingTests {
    struct Message: Decodable, Equatable {
        let n: Int
    }

    @Test("chunks arrive in order, each before the next is sent")
    func progressive() async throws {
        let transport = ScriptedStreamTransport(
            headers: ["Content-Type": "text/plain"], chunks: ["one", "two", "three"].map { Data($0.utf8) },
            interval: .milliseconds(100))
        let client = Client<TestEndpoint>(transport: transport)
        let stream = try await client.stream(TestEndpoint())
        #expect(stream.response.statusCode == 200)
        #expect(stream.response.data.isEmpty)
        var received: [String] = []
        var receivedAt: [ContinuousClock.Instant] = []
        for try await chunk in stream {
            received.append(String(decoding: chunk, as: UTF8.self))
            receivedAt.append(.now)
        }
        #expect(received == ["one", "two", "three"])
        // The first chunk was in the consumer's hands before the second was sent.
        let sent = transport.sentAt
        #expect(sent.count == 3 && receivedAt[0] < sent[1])
    }

    @Test("lines: LF, CRLF and CR endings across chunk boundaries; the last line without an ending")
    func lines() async throws {
        let transport = ScriptedStreamTransport(
            headers: ["Content-Type": "text/plain"],
            chunks: ["al", "pha\r", "\nbeta\rgam", "ma\n\ndel", "ta"].map { Data($0.utf8) })
        let client = Client<TestEndpoint>(transport: transport)
        var lines: [String] = []
        for try await line in try await client.stream(TestEndpoint()).lines { lines.append(line) }
        #expect(lines == ["alpha", "beta", "gamma", "", "delta"])
    }

    @Test("a line past the bound ends the stream with responseTooLarge")
    func overlongLine() async throws {
        let transport = ScriptedStreamTransport(chunks: [Data(repeating: 0x61, count: 5000), Data("\n".utf8)])
        let client = Client<TestEndpoint>(transport: transport)
        let stream = try await client.stream(TestEndpoint())
        let error = await #expect(throws: NALError.self) {
            for try await _ in stream.lines(maximumLineLength: 1000) {}
        }
        guard case .responseTooLarge(1000, _)? = error else {
            Issue.record("expected responseTooLarge(1000), got \(String(describing: error))")
            return
        }
    }

    @Test("what came before an item past the bound is delivered first, then the error: lines and events")
    func goodItemsBeforeOversized() async throws {
        let lines = ScriptedStreamTransport(chunks: [Data(("ok\n" + String(repeating: "x", count: 100) + "\n").utf8)])
        var received: [String] = []
        do {
            for try await line in try await Client<TestEndpoint>(transport: lines).stream(TestEndpoint())
                .lines(maximumLineLength: 16)
            {
                received.append(line)
            }
            Issue.record("an overlong line was accepted")
        } catch {
            guard case .responseTooLarge(let limit, let url) = error else {
                Issue.record("expected responseTooLarge, got \(error)")
                return
            }
            #expect(limit == 16)
            #expect(url?.host == TestEndpoint.exampleBase.host)
        }
        #expect(received == ["ok"])

        let big = "data: " + String(repeating: "x", count: ServerSentEventParser.defaultMaximumEventSize + 1) + "\n\n"
        let events = ScriptedStreamTransport(chunks: [Data(("data: ok\n\n" + big).utf8)])
        var delivered: [String] = []
        do {
            for try await event in try await Client<TestEndpoint>(transport: events).stream(TestEndpoint())
                .serverSentEvents
            {
                delivered.append(event.data)
            }
            Issue.record("an event past the bound was accepted")
        } catch {
            guard case .responseTooLarge = error else {
                Issue.record("expected responseTooLarge, got \(error)")
                return
            }
        }
        #expect(delivered == ["ok"])
    }

    @Test("two loops reading one stream at once: the second fails at once, the first gets every chunk")
    func concurrentReaders() async throws {
        let (body, writer) = StreamedBody.makeStream()
        let stream = ResponseStream(
            response: try MemoryTransport.response(to: URLRequest(url: TestEndpoint.exampleBase)), body: body)
        let (refusals, refused) = AsyncStream<Void>.makeStream()
        let readers = (0..<2).map { _ in
            Task { () -> Result<[String], NALError> in
                var received: [String] = []
                do throws(NALError) {
                    for try await chunk in stream { received.append(String(decoding: chunk, as: UTF8.self)) }
                    return .success(received)
                } catch {
                    refused.yield()
                    return .failure(error)
                }
            }
        }
        // Whichever loop waits second is refused before anything is sent; the other keeps waiting.
        let refusedInTime = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                var refusal = refusals.makeAsyncIterator()
                return await refusal.next() != nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                return false
            }
            defer { group.cancelAll() }
            return await group.next() ?? false
        }
        guard refusedInTime else {
            // Both loops wait, one of them on a continuation nobody holds: they cannot be awaited.
            Issue.record("neither loop was refused within 10 s")
            return
        }
        writer.append(Data("one".utf8))
        writer.append(Data("two".utf8))
        writer.finish()
        var delivered: [[String]] = []
        var failures: [NALError] = []
        for reader in readers {
            switch await reader.value {
            case .success(let chunks): delivered.append(chunks)
            case .failure(let error): failures.append(error)
            }
        }
        #expect(delivered == [["one", "two"]])
        guard failures.count == 1, case .streamAlreadyBeingRead = failures[0] else {
            Issue.record("expected one streamAlreadyBeingRead, got \(failures)")
            return
        }
    }

    @Test("a producer waiting for capacity stops waiting when its task is cancelled")
    func producerCancellation() async throws {
        let (body, writer) = StreamedBody.makeStream(highWater: 16)
        writer.append(Data(count: 32))
        let producer = Task {
            await writer.awaitCapacity()
            return Task.isCancelled
        }
        try await Task.sleep(for: .milliseconds(50))
        producer.cancel()
        #expect(await producer.value)
        withExtendedLifetime(body) {}
    }

    @Test(
        "JSON lines decode one value per line, skip empty lines and lines of spaces, and name the line that does not decode"
    )
    func jsonLines() async throws {
        let transport = ScriptedStreamTransport(
            headers: ["Content-Type": "application/x-ndjson"],
            chunks: ["{\"n\":1}\n{\"n\"", ":2}\n\n \t\n", "{\"n\":3}\nnot json\n"].map { Data($0.utf8) })
        let client = Client<TestEndpoint>(transport: transport)
        var values: [Message] = []
        do {
            for try await value in try await client.stream(TestEndpoint()).jsonLines(of: Message.self) {
                values.append(value)
            }
            Issue.record("a line that is not JSON was accepted")
        } catch {
            guard case .decoding(let failure) = error else {
                Issue.record("expected a decoding error, got \(error)")
                return
            }
            #expect(failure.response.string() == "not json")
            // Lines are counted from 1, the empty one and the one of spaces included.
            #expect(failure.line == 6)
            #expect("\(error)".contains("from line 6 "))
        }
        #expect(values == [Message(n: 1), Message(n: 2), Message(n: 3)])
    }

    @Test("server-sent events through a stream; a body that is not an event stream fails before any event")
    func events() async throws {
        let transport = ScriptedStreamTransport(chunks: ["data: a\n", "\nevent: e\ndata: b\n\n"].map { Data($0.utf8) })
        var events: [ServerSentEvent] = []
        for try await event in try await Client<TestEndpoint>(transport: transport).stream(TestEndpoint())
            .serverSentEvents
        {
            events.append(event)
        }
        #expect(events == [ServerSentEvent(data: "a"), ServerSentEvent(event: "e", data: "b")])

        let plain = ScriptedStreamTransport(headers: ["Content-Type": "application/json"], chunks: [Data("{}".utf8)])
        let stream = try await Client<TestEndpoint>(transport: plain).stream(TestEndpoint())
        do {
            for try await _ in stream.serverSentEvents { Issue.record("an event from a JSON body") }
            Issue.record("a JSON body was read as events")
        } catch {
            guard case .decoding(let failure) = error else {
                Issue.record("expected a decoding error, got \(error)")
                return
            }
            #expect(failure.response.string() == "{}")
            #expect("\(error)".contains("text/event-stream"))
        }
    }

    @Test("leaving the loop early stops the body and cancels the transfer")
    func breakCancels() async throws {
        let transport = ScriptedStreamTransport(
            headers: ["Content-Type": "text/plain"], chunks: (0..<100).map { Data("\($0)".utf8) },
            interval: .milliseconds(10))
        let client = Client<TestEndpoint>(transport: transport)
        let stream = try await client.stream(TestEndpoint())
        for try await _ in stream { break }
        #expect(transport.cancelled)
        #expect(transport.sentAt.count < 100)
    }

    @Test("cancelling the consuming task ends the loop with .cancelled and cancels the transfer")
    func taskCancellation() async throws {
        let transport = ScriptedStreamTransport(
            headers: ["Content-Type": "text/plain"], chunks: (0..<1000).map { Data("\($0)".utf8) },
            interval: .milliseconds(20))
        let client = Client<TestEndpoint>(transport: transport)
        let reader = Task { () -> NALError? in
            do throws(NALError) {
                for try await _ in try await client.stream(TestEndpoint()) {}
                return nil
            } catch {
                return error
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        reader.cancel()
        let error = await reader.value
        guard case .cancelled? = error else {
            Issue.record("expected .cancelled, got \(String(describing: error))")
            return
        }
        #expect(transport.cancelled)
    }

    @Test("a stream dropped unread cancels its transfer")
    func droppedUnread() async throws {
        let transport = ScriptedStreamTransport(
            headers: ["Content-Type": "text/plain"], chunks: (0..<100).map { Data("\($0)".utf8) },
            interval: .milliseconds(10))
        let client = Client<TestEndpoint>(transport: transport)
        do {
            let stream = try await client.stream(TestEndpoint())
            #expect(stream.response.statusCode == 200)
        }
        #expect(transport.cancelled)
    }

    @Test("a refused status throws unacceptableStatusCode with the start of the body, and stops the rest")
    func refusedStatus() async throws {
        let transport = ScriptedStreamTransport(
            status: 404, headers: ["Content-Type": "text/plain"],
            chunks: [Data("not ".utf8), Data("found".utf8)] + (0..<50).map { _ in Data(count: 4096) })
        let client = Client<TestEndpoint>(transport: transport)
        do {
            _ = try await client.stream(TestEndpoint())
            Issue.record("a 404 stream was accepted")
        } catch {
            guard case .unacceptableStatusCode(let response) = error else {
                Issue.record("expected unacceptableStatusCode, got \(error)")
                return
            }
            #expect(response.statusCode == 404)
            #expect(response.data.starts(with: Data("not found".utf8)))
            #expect(response.data.count <= 64 << 10)
            #expect(response.streamedBody == nil)
        }
    }

    @Test("chunks that arrived before a failure are delivered, then the failure")
    func failureAfterChunks() async throws {
        let transport = ScriptedStreamTransport(
            headers: ["Content-Type": "text/plain"], chunks: [Data("a".utf8), Data("b".utf8)],
            failure: .transport(URLError(.networkConnectionLost)))
        var received = Data()
        do {
            for try await chunk in try await Client<TestEndpoint>(transport: transport).stream(TestEndpoint()) {
                received.append(chunk)
            }
            Issue.record("the failure was lost")
        } catch {
            guard case .transport(let urlError) = error else {
                Issue.record("expected a transport error, got \(error)")
                return
            }
            #expect(urlError.code == .networkConnectionLost)
        }
        #expect(received == Data("ab".utf8))
    }

    @Test("the total timeout covers the whole stream, not only its head")
    func totalTimeout() async throws {
        let transport = ScriptedStreamTransport(
            headers: ["Content-Type": "text/plain"], chunks: (0..<100).map { Data("\($0)".utf8) },
            interval: .milliseconds(50))
        let client = Client<TestEndpoint>(transport: transport)
        var count = 0
        do {
            for try await _ in try await client.stream(TestEndpoint(totalTimeout: 0.5)) { count += 1 }
            Issue.record("a 5 s stream outlived a 0.5 s total timeout")
        } catch {
            guard case .timedOut(let failure) = error else {
                Issue.record("expected a timeout, got \(error)")
                return
            }
            #expect(failure.limit == .total)
        }
        #expect(count > 0 && count < 100)
        #expect(transport.cancelled)
    }

    @Test("a transport that cannot stream gives its whole body as one chunk")
    func wholeBodyTransport() async throws {
        let client = Client<TestEndpoint>(transport: MemoryTransport(body: Data("{\"n\":7}\n".utf8)))
        var values: [Message] = []
        for try await value in try await client.stream(TestEndpoint()).jsonLines(of: Message.self) {
            values.append(value)
        }
        #expect(values == [Message(n: 7)])
    }

    @Test("a slow consumer holds the producer back: what waits stays near the bound")
    func backPressure() async throws {
        let (body, writer) = StreamedBody.makeStream(highWater: 64 << 10)
        let count = Locked(0)
        let produced = Task {
            for _ in 0..<1000 {
                guard writer.append(Data(count: 16 << 10)) else { break }
                count.withLock { $0 += 1 }
                await writer.awaitCapacity()
            }
            writer.finish()
            return count.withLock { $0 }
        }
        try await Task.sleep(for: .milliseconds(200))
        // While nobody reads, the producer fills the bound (four chunks of 16 KiB) and waits.
        #expect(count.withLock { $0 } == 4)
        #expect(writer.isFull)
        let head = try MemoryTransport.response(to: URLRequest(url: TestEndpoint.exampleBase))
        var total = 0
        for try await chunk in ResponseStream(response: head, body: body) { total += chunk.count }
        #expect(total == 1000 * (16 << 10))
        #expect(await produced.value == 1000)
    }

    @Test("a refused body that trickles does not hold the error back: what came within a second is kept")
    func refusedTrickle() async throws {
        let transport = ScriptedStreamTransport(
            status: 503, headers: ["Content-Type": "text/plain"], chunks: [Data("busy".utf8), Data("more".utf8)],
            interval: .seconds(30))
        let clock = ContinuousClock()
        let start = clock.now
        do {
            _ = try await Client<TestEndpoint>(transport: transport).stream(TestEndpoint())
            Issue.record("a 503 was streamed")
        } catch {
            #expect(error.response?.string() == "busy")
        }
        #expect(clock.now - start < Timing.bound(.seconds(1)))
    }

    @Test("reconnection waits: the server's retry first, then backoff from at least 100 ms, capped, in closed form")
    func reconnectionDelays() {
        let policy = ReconnectionPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(30))
        #expect(policy.delay(afterFailures: 1, serverRetry: nil) == .seconds(1))
        #expect(policy.delay(afterFailures: 3, serverRetry: nil) == .seconds(4))
        // `retry: 0` waits the minimum, 100 ms, even after a connection that delivered events.
        #expect(policy.delay(afterFailures: 1, serverRetry: .zero) == .milliseconds(100))
        #expect(policy.delay(afterFailures: 2, serverRetry: .zero) == .milliseconds(200))
        #expect(policy.delay(afterFailures: 1, serverRetry: .milliseconds(30)) == .milliseconds(100))
        // No policy waits less than the floor: a policy with no minimum still waits 100 ms.
        let eager = ReconnectionPolicy(initialDelay: .zero, minimumDelay: .zero)
        #expect(eager.delay(afterFailures: 1, serverRetry: .zero) == ReconnectionPolicy.reconnectionFloor)
        #expect(eager.delay(afterFailures: 2, serverRetry: .zero) == .milliseconds(200))
        var edited = ReconnectionPolicy.default
        edited.minimumDelay = .milliseconds(-1)
        edited.maximumDelay = .zero
        #expect(edited.delay(afterFailures: 1, serverRetry: .zero) == .milliseconds(100))
        #expect(policy.delay(afterFailures: 1, serverRetry: .seconds(3600)) == .seconds(30))
        #expect(policy.delay(afterFailures: .max, serverRetry: nil) == .seconds(30))
        // A maximum of millennia is a year: longer waits are computed, not trapped on, and then capped.
        let patient = ReconnectionPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(Int64(1) << 40))
        #expect(patient.delay(afterFailures: 20, serverRetry: nil) == .seconds(Int64(1) << 19))
        #expect(patient.delay(afterFailures: 40, serverRetry: nil) == .seconds(365 * 24 * 3600))
    }
}
