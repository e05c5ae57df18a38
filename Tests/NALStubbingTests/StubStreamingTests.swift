import Foundation
import NALCore
import NALLogging
import NALMiddleware
import NALStubbing
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An LLM-style API: a prompt posted as JSON, the answer streamed back as server-sent events.
enum Chat: RemoteService, AccessTokenAuthorizable, Equatable {
    case completions(prompt: String)
    case export

    var baseURL: URL { URL(string: "https://llm.example.com/v1") ?? URL(fileURLWithPath: "/") }
    var path: String {
        switch self {
        case .completions: "chat/completions"
        case .export: "export"
        }
    }
    var method: HTTPMethod {
        switch self {
        case .completions: .post
        case .export: .get
        }
    }
    var requestType: RequestType {
        switch self {
        case .completions(let prompt):
            .parameters(["prompt": .string(prompt), "stream": true], encoding: JSONEncoding.default)
        case .export: .plain
        }
    }
    var accessTokenType: AccessTokenType { .bearer }
}

/// A live feed, as in the README's streaming overview.
enum Room: RemoteService, Equatable {
    case events(room: String)

    var baseURL: URL { URL(string: "https://chat.example.com") ?? URL(fileURLWithPath: "/") }
    var path: String {
        switch self {
        case .events(let room): "rooms/\(room)/events"
        }
    }
    var method: HTTPMethod { .get }
    var requestType: RequestType { .plain }
}

@Suite("Streams from stubs, through middleware")
struct StubStreamingTests {
    static let tokens = ["Hel", "lo", ", wor", "ld"].map { ServerSentEvent(data: $0) }

    /// When each element of `sequence` arrived, from `start`.
    static func arrivals<S: AsyncSequence>(
        of sequence: S, from start: ContinuousClock.Instant
    ) async throws -> [(S.Element, Duration)] {
        var arrivals: [(S.Element, Duration)] = []
        for try await element in sequence { arrivals.append((element, .now - start)) }
        return arrivals
    }

    @Test("StubTransport plays .events one at a time: the first arrives before the second is sent")
    func transportEventsArriveProgressively() async throws {
        let stubs = StubTransport<Chat>(.immediate)
        stubs.stub(.completions(prompt: "hi"), with: .events(Self.tokens, interval: .milliseconds(300)))
        let start = ContinuousClock.now
        let stream = try await Client<Chat>(transport: stubs).stream(.completions(prompt: "hi"))
        #expect(stream.response.httpResponse.value(forHTTPHeaderField: "Content-Type") == "text/event-stream")
        let arrivals = try await Self.arrivals(of: stream.serverSentEvents, from: start)
        #expect(arrivals.map(\.0.data) == ["Hel", "lo", ", wor", "ld"])
        #expect(arrivals.count == 4)
        if arrivals.count == 4 {
            // A body played whole would arrive at once; these are spread over three intervals (900 ms), of which
            // a loaded machine may eat the start.
            #expect(arrivals[3].1 - arrivals[0].1 >= .milliseconds(300), "the first event waited for the others")
        }
    }

    @Test("the README's chat example")
    func readmeChat() async throws {
        // Docs: begin streaming-chat-stub
        let stubs = StubTransport<Chat>(.immediate)
        let tokens = ["Hel", "lo", ", wor", "ld"].map { ServerSentEvent(data: $0) }
        stubs.stub(
            .completions(prompt: "hi"), with: .events(tokens, interval: .milliseconds(20)))

        let client = Client<Chat>(transport: stubs)
        var answer = ""
        for try await event in try await client.stream(.completions(prompt: "hi"))
            .serverSentEvents
        {
            answer += event.data  // the first token arrives before the second is sent
        }
        #expect(answer == "Hello, world")
        // Docs: end streaming-chat-stub
    }

    @Test("the README's streaming overview")
    func readmeOverview() async throws {
        let stubs = StubTransport<Room>(.immediate)
        stubs.stub(.events(room: "swift"), with: .events(["hello", "bye"].map { ServerSentEvent(data: $0) }))
        let client = Client<Room>(transport: stubs)
        var lastID = ""
        // Docs: begin streaming-overview
        // throws NALError: connection, status, validation
        let stream = try await client.stream(.events(room: "swift"))
        // the head; its body is empty, and keeping it does not keep the stream
        print(stream.response.statusCode)
        var received: [String] = []
        // ServerSentEvent: event, data, lastEventID, retry
        for try await event in stream.serverSentEvents {
            received.append(event.data)
        }
        // Other views of a body, each read once: `for try await chunk in stream` (Data, as it
        // arrives), `stream.lines` (String, without its line ending), `stream.jsonLines(of:
        // Message.self)` (NDJSON).

        // Reconnects like a browser's EventSource: waits the server's retry: (or the policy's
        // backoff), then sends Last-Event-ID. A 204, another status, a body that is not
        // text/event-stream, or cancellation ends it. `reconnect:` takes a ReconnectionPolicy
        // (`.default`, `.never`, or your own, whose `maximumAttempts` bounds the reconnections
        // that deliver nothing); `lastEventID:` resumes from an ID kept from an earlier run.
        for try await event in client.serverSentEvents(
            .events(room: "swift"), lastEventID: lastID)
        {
            lastID = event.lastEventID
            if event.data == "bye" { break }
        }

        // The parser alone, for bytes from anywhere; it keeps partial lines between calls.
        var parser = ServerSentEventParser()
        let events = parser.parse(Data("data: hel".utf8)) + parser.parse(Data("lo\n\n".utf8))
        // Docs: end streaming-overview
        #expect(stream.response.statusCode == 200)
        #expect(received == ["hello", "bye"])
        #expect(events.map(\.data) == ["hello"])
    }

    @Test("StubServer plays .stream chunk by chunk to NAL's URLSession transport")
    func serverChunksArriveProgressively() async throws {
        let server = StubServer()
        let chunks = (1...3).map { Data("{\"n\":\($0)}\n".utf8) }
        server.stub(.path("/v1/export"), response: .stream(chunks, interval: .milliseconds(300)))
        let client = Client<Chat>(transport: URLSessionTransport(configuration: server.sessionConfiguration))
        let start = ContinuousClock.now
        let stream = try await client.stream(.export)
        struct Line: Decodable { let n: Int }
        let arrivals = try await Self.arrivals(of: stream.jsonLines(of: Line.self), from: start)
        #expect(arrivals.map(\.0.n) == [1, 2, 3])
        if arrivals.count == 3 {
            #expect(arrivals[2].1 - arrivals[0].1 >= .milliseconds(300), "the first line waited for the others")
        }
    }

    @Test("StubServer plays .events to NAL's transport, and serverSentEvents reads them")
    func serverEvents() async throws {
        let server = StubServer()
        server.stub(.path("/v1/chat/completions"), response: .events(Self.tokens, interval: .milliseconds(20)))
        let client = Client<Chat>(transport: URLSessionTransport(configuration: server.sessionConfiguration))
        var answer = ""
        for try await event in client.serverSentEvents(.completions(prompt: "hi"), reconnect: .never) {
            answer += event.data
        }
        #expect(answer == "Hello, world")
    }

    @Test("a browser's HAR export of an event stream replays as a stream, with its head")
    func harEventStream() async throws {
        let server = StubServer()
        let handles = try server.loadHAR(
            from: Fixtures.root.appendingPathComponent("har").appendingPathComponent("event_stream.har"))
        #expect(handles.count == 2)
        let url = try #require(
            URL(
                string:
                    "https://clientstream.launchdarkly.com/meval/eyJhbm9ueW1vdXMiOnRydWUsImtleSI6Im1pbnQtYW5kcm9pZCJ9"
            ))
        let client = Client<TestEndpoint>(transport: URLSessionTransport(configuration: server.sessionConfiguration))
        let stream = try await client.stream(TestEndpoint(baseURL: url))
        #expect(stream.response.statusCode == 200)
        #expect(
            stream.response.httpResponse.value(forHTTPHeaderField: "Content-Type") == "text/event-stream; charset=utf-8"
        )
        // mitmproxy kept no body for these long-lived streams: the replay is an event stream that ends empty.
        var events: [ServerSentEvent] = []
        for try await event in stream.serverSentEvents { events.append(event) }
        #expect(events.isEmpty)
    }

    @Test("a .tail file whose content type is text/event-stream replays as events")
    func tailEventStream() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tail = "GET\n/v1/export\n200\nContent-Type: text/event-stream\n\nid: 1\ndata: one\n\ndata: two\n\n"
        try Data(tail.utf8).write(to: directory.appendingPathComponent("events.tail"))
        let server = StubServer()
        #expect(try server.loadTails(from: directory).count == 1)
        let client = Client<Chat>(transport: URLSessionTransport(configuration: server.sessionConfiguration))
        var events: [ServerSentEvent] = []
        for try await event in try await client.stream(.export).serverSentEvents { events.append(event) }
        #expect(
            events == [ServerSentEvent(data: "one", lastEventID: "1"), ServerSentEvent(data: "two", lastEventID: "1")])
    }

    @Test("a recorded stream replays as the same events")
    func recordedStreamReplays() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cassette = directory.appendingPathComponent("chat.har")
        let live = StubTransport<Chat>(.immediate)
        live.stub(.completions(prompt: "hi"), with: .events(Self.tokens, interval: .milliseconds(10)))

        let recorder = RecordingTransport(cassette: cassette, mode: .recordAll, wrapping: live)
        var recorded: [ServerSentEvent] = []
        for try await event in try await Client<Chat>(transport: recorder).stream(.completions(prompt: "hi"))
            .serverSentEvents
        {
            recorded.append(event)
        }
        #expect(recorded.map(\.data) == ["Hel", "lo", ", wor", "ld"])

        let player = RecordingTransport(cassette: cassette, mode: .replayOnly, wrapping: OfflineTransport())
        var replayed: [ServerSentEvent] = []
        for try await event in try await Client<Chat>(transport: player).stream(.completions(prompt: "hi"))
            .serverSentEvents
        {
            replayed.append(event)
        }
        #expect(replayed == recorded)
    }

    @Test("network activity lasts until the body ends, not until the head arrives")
    func activitySpansTheBody() async throws {
        let changes = Locked<[NetworkActivityMiddleware.Change]>([])
        let stubs = StubTransport<Chat>(.immediate)
        stubs.stub(.export, with: .stream([Data("a".utf8), Data("b".utf8)], interval: .milliseconds(50)))
        let client = Client<Chat>(
            middleware: [NetworkActivityMiddleware { change, _ in changes.withLock { $0.append(change) } }],
            transport: stubs)
        let stream = try await client.stream(.export)
        #expect(changes.withLock { $0 } == [.began])
        var body = Data()
        for try await chunk in stream { body.append(chunk) }
        #expect(body == Data("ab".utf8))
        #expect(changes.withLock { $0 } == [.began, .ended])
    }

    @Test("logging logs the head, then the end of the stream with its bytes")
    func loggingLogsTheEnd() async throws {
        let stubs = StubTransport<Chat>(.immediate)
        stubs.stub(.export, with: .stream([Data("12345".utf8), Data("678".utf8)], interval: .milliseconds(20)))
        let client = Client<Chat>(middleware: [LoggingMiddleware()], transport: stubs)
        try await LogCapture.capture("dev.nal=info,*=off") { sink in
            var count = 0
            for try await chunk in try await client.stream(.export) { count += chunk.count }
            #expect(count == 8)
            let ends = sink.entries.filter { $0.message.contains("/v1/export stream ended: 8 bytes in") }
            #expect(ends.count == 1)
        }
    }

    @Test("logging logs a stream cut short as failed, with the bytes that came")
    func loggingLogsAFailedEnd() async throws {
        let stubs = StubTransport<Chat>(.immediate)
        stubs.stub(
            .export,
            with: .stream([Data("12345".utf8), Data("678".utf8)], interval: .milliseconds(20)).truncated(after: 5))
        let client = Client<Chat>(middleware: [LoggingMiddleware()], transport: stubs)
        try await LogCapture.capture("dev.nal=info,*=off") { sink in
            var count = 0
            do {
                for try await chunk in try await client.stream(.export) { count += chunk.count }
                Issue.record("a stream cut after 5 bytes ended well")
            } catch {}
            #expect(count == 5)
            let ends = sink.entries.filter { $0.message.contains("/v1/export stream ended: failed after 5 bytes: ") }
            #expect(ends.count == 1, "\(sink.entries.map(\.message))")
        }
    }

    @Test("a 401 head refreshes the token and the stream comes from the replay")
    func tokenRefreshOnHead() async throws {
        let token = Locked("old")
        let refreshes = Locked(0)
        let stubs = StubTransport<Chat>(.immediate)
        stubs.stub(
            .completions(prompt: "hi"), with: .string("expired", status: 401), .events(Self.tokens))
        let auth = AccessTokenMiddleware(
            token: { _ in token.withLock { $0 } },
            refresh: {
                refreshes.withLock { $0 += 1 }
                token.withLock { $0 = "new" }
            })
        let client = Client<Chat>(middleware: [auth], transport: stubs)
        var answer = ""
        for try await event in try await client.stream(.completions(prompt: "hi")).serverSentEvents {
            answer += event.data
        }
        #expect(answer == "Hello, world")
        #expect(refreshes.withLock { $0 } == 1)
        #expect(stubs.requests.map { $0.value(forHTTPHeaderField: "Authorization") } == ["Bearer old", "Bearer new"])
    }

    @Test("retry retries a refused head; a body that fails after its head is not sent again")
    func retryOnlyBeforeTheBody() async throws {
        let stubs = StubTransport<Chat>(.immediate)
        stubs.stub(.export, with: .string("busy", status: 503), .stream([Data("ok".utf8)]))
        let client = Client<Chat>(middleware: [RetryMiddleware(baseDelay: .milliseconds(1))], transport: stubs)
        var body = Data()
        for try await chunk in try await client.stream(.export) { body.append(chunk) }
        #expect(body == Data("ok".utf8))
        #expect(stubs.requests.count == 2)

        let failing = ScriptedStreamTransport(
            chunks: [Data("part".utf8)], failure: .transport(URLError(.networkConnectionLost)))
        let retrying = Client<Chat>(middleware: [RetryMiddleware(baseDelay: .milliseconds(1))], transport: failing)
        var received = Data()
        do {
            for try await chunk in try await retrying.stream(.export) { received.append(chunk) }
            Issue.record("a body cut short ended normally")
        } catch {
            guard case .transport(let urlError) = error else {
                Issue.record("expected the transport error, got \(error)")
                return
            }
            #expect(urlError.code == .networkConnectionLost)
        }
        #expect(received == Data("part".utf8))
        #expect(failing.calls == 1)
    }
}
