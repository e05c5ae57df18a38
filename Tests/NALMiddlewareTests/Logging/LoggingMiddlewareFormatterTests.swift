import Foundation
import NALCore
import NALLogging
import NALMiddleware
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("LoggingMiddleware: its default level and its formatter")
struct LoggingMiddlewareFormatterTests {
    static let endpoint = TestEndpoint(
        path: "login", method: .post, requestType: .data(Data(#"{"password":"hunter2"}"#.utf8)),
        headers: ["Authorization": "Bearer abc.def", "Content-Type": "application/json"])

    @Test("with NALLogging's default configuration, LoggingMiddleware() is seen at once; an info level is not")
    func defaultLevelShows() async throws {
        try await LogCapture.exclusively {
            let sink = InMemorySink()
            LoggingSystem.bootstrapForTesting(sinks: [sink], configuration: LogConfiguration())
            let transport = MemoryTransport(body: Data("{}".utf8))
            _ = try await Client<TestEndpoint>(middleware: [LoggingMiddleware()], transport: transport)
                .request(Self.endpoint)
            let shown =
                sink.entries(subsystem: "dev.nal", category: "request", containing: "/v1/login")
                + sink.entries(subsystem: "dev.nal", category: "response", containing: "/v1/login")
            #expect(shown.count == 2)
            #expect(shown.allSatisfy { $0.level == .notice })
            _ = try await Client<TestEndpoint>(middleware: [LoggingMiddleware(level: .info)], transport: transport)
                .request(TestEndpoint(path: "quiet"))
            #expect(sink.entries(subsystem: "dev.nal", category: "request", containing: "/v1/quiet").isEmpty)
        }
    }

    @Test("a formatter gets each entry with secrets redacted, and what it returns is what is logged")
    func formatterShapesEntries() async throws {
        let seen = Locked<[LoggingMiddleware.Entry]>([])
        let logging = LoggingMiddleware(options: [.headers, .bodies, .timing]) { entry in
            seen.withLock { $0.append(entry) }
            return "Moya_Logger: \(entry.kind) \(entry.method) \(entry.url) \(entry.statusCode.map(String.init) ?? "-")"
        }
        // A path of its own: tests that only log, in parallel, add their lines to the same sink.
        var endpoint = Self.endpoint
        endpoint.path = "formatted-login"
        let url = "https://api.example.com/v1/formatted-login"
        try await LogCapture.capture("dev.nal=notice,*=off") { sink in
            _ = try await Client<TestEndpoint>(middleware: [logging], transport: MemoryTransport(body: Data("{}".utf8)))
                .request(endpoint)
            let ours = { (category: String) in
                sink.messages(subsystem: "dev.nal", category: category).filter { $0.contains("/v1/formatted-login") }
            }
            #expect(ours("request") == ["Moya_Logger: request POST \(url) -"])
            #expect(ours("response") == ["Moya_Logger: response POST \(url) 200"])
        }
        let entries = seen.withLock { $0 }
        try #require(entries.count == 2)
        let request = entries[0]
        #expect(request.kind == .request)
        #expect(request.target == "TestEndpoint")
        #expect(request.url == url)
        #expect(request.attempt == 1)
        #expect(request.headers.first { $0.name == "Authorization" }?.value == "Bearer <redacted>")
        #expect(request.body == #"{"password":"<redacted>"}"#)
        let response = entries[1]
        #expect(response.kind == .response)
        #expect(response.statusCode == 200)
        #expect(response.byteCount == 2)
        #expect(response.duration != nil)
        #expect(response.headers.contains { $0.name == "Content-Type" })
    }

    @Test("what options leave out is nil or empty in the entry: no headers, body, curl command or duration")
    func optionsLeaveOut() async throws {
        let seen = Locked<[LoggingMiddleware.Entry]>([])
        let logging = LoggingMiddleware(options: []) { entry in
            seen.withLock { $0.append(entry) }
            return ""
        }
        try await LogCapture.capture("dev.nal=notice,*=off") { _ in
            _ = try await Client<TestEndpoint>(middleware: [logging], transport: MemoryTransport(body: Data("{}".utf8)))
                .request(Self.endpoint)
        }
        let entries = seen.withLock { $0 }
        #expect(entries.map(\.kind) == [.request, .response])
        for entry in entries {
            #expect(entry.headers.isEmpty)
            #expect(entry.body == nil)
            #expect(entry.curlCommand == nil)
            #expect(entry.duration == nil)
        }
        #expect(entries.last?.byteCount == 2)
    }

    @Test("a formatter that returns nil logs nothing for that entry")
    func nilSkips() async throws {
        let logging = LoggingMiddleware(options: []) { entry in entry.kind == .request ? nil : "only \(entry.kind)" }
        try await LogCapture.capture("dev.nal=notice,*=off") { sink in
            _ = try await Client<TestEndpoint>(middleware: [logging], transport: MemoryTransport(body: Data("{}".utf8)))
                .request(Self.endpoint)
            #expect(sink.messages(subsystem: "dev.nal", category: "request").isEmpty)
            #expect(sink.messages(subsystem: "dev.nal", category: "response") == ["only response"])
        }
    }

    @Test("a failure reaches the formatter as .failure with its error")
    func failureEntry() async throws {
        let seen = Locked<[LoggingMiddleware.Entry]>([])
        let logging = LoggingMiddleware(options: []) { entry in
            seen.withLock { $0.append(entry) }
            return LoggingMiddleware.defaultFormatter(entry)
        }
        try await LogCapture.capture("dev.nal=notice,*=off") { sink in
            _ = try? await Client<TestEndpoint>(
                middleware: [logging],
                transport: TestTransports.FailingTransport(error: .transport(URLError(.cannotConnectToHost)))
            ).request(TestEndpoint(path: "down"))
            let lines = sink.messages(subsystem: "dev.nal", category: "response")
            #expect(lines.count == 1)
            #expect(lines.first?.hasPrefix("GET https://api.example.com/v1/down failed: Transport failed") == true)
        }
        let failure = try #require(seen.withLock { $0.last })
        #expect(failure.kind == .failure)
        #expect(failure.error?.hasPrefix("Transport failed") == true)
        #expect(failure.headers.isEmpty)
        #expect(failure.duration == nil)
    }

    @Test("the default formatter lays an entry out as NAL always has")
    func defaultLayout() {
        let request = LoggingMiddleware.Entry(
            kind: .request, target: "TestEndpoint", method: "GET", url: "https://a.example/x", attempt: 2,
            headers: [("Accept", "*/*")], body: "(no body)", curlCommand: "curl https://a.example/x")
        #expect(
            LoggingMiddleware.defaultFormatter(request)
                == "→ GET https://a.example/x (attempt 2)\n  Accept: */*\n  (no body)\ncurl https://a.example/x")
        let response = LoggingMiddleware.Entry(
            kind: .response, target: "TestEndpoint", method: "GET", url: "https://a.example/x", statusCode: 404,
            duration: .milliseconds(12), byteCount: 3)
        #expect(LoggingMiddleware.defaultFormatter(response) == "← 404 GET https://a.example/x, 3 bytes in 12.0 ms")
        let ended = LoggingMiddleware.Entry(
            kind: .streamEnded, target: "TestEndpoint", method: "GET", url: "https://a.example/s",
            duration: .milliseconds(5), byteCount: 10, error: "cut")
        #expect(
            LoggingMiddleware.defaultFormatter(ended)
                == "GET https://a.example/s stream ended: failed after 10 bytes: cut in 5.0 ms")
    }
}
