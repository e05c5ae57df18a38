import Foundation
import NALLogging
import NALTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// These tests change the process-wide logging set-up, so each holds `LogCapture.exclusively`, and each reads only
/// its own subsystem: other suites keep logging while they run.
@Suite("Logger, sinks and LoggingSystem")
struct LoggingSystemTests {
    @Test("level filtering follows the configuration, and changes reach existing loggers")
    func levelFiltering() async throws {
        try await LogCapture.exclusively { try levelFilteringBody() }
    }

    func levelFilteringBody() throws {
        let sink = InMemorySink()
        let logger = Logger(subsystem: "test.filter", category: "one")
        LoggingSystem.bootstrapForTesting(sinks: [sink], configuration: try .parse("test.filter=info"))
        var built = 0
        func expensive() -> String {
            built += 1
            return "built"
        }
        logger.debug("hidden \(expensive())")
        logger.trace("hidden too")
        logger.info("shown info")
        logger.notice("shown notice")
        logger.warning("shown warning")
        logger.critical("shown critical")
        #expect(built == 0, "a disabled message must not be built")
        #expect(
            sink.messages(subsystem: "test.filter") == [
                "shown info", "shown notice", "shown warning", "shown critical",
            ])
        #expect(sink.entries(subsystem: "test.filter").map(\.level) == [.info, .notice, .error, .fault])

        LoggingSystem.bootstrapForTesting(sinks: [sink], configuration: try .parse("test.filter:one=debug"))
        #expect(logger.isEnabled(.debug))
        logger.debug("now \(expensive(), privacy: .public)")
        #expect(built == 1)
        #expect(sink.contains("now built"))

        LoggingSystem.bootstrapForTesting(sinks: [sink], configuration: try .parse("test.filter=off"))
        logger.fault("off means off")
        #expect(!sink.contains("off means off"))
    }

    @Test("several sinks at once, and in-memory queries")
    func sinksAndQueries() async throws {
        try await LogCapture.exclusively { try sinksAndQueriesBody() }
    }

    func sinksAndQueriesBody() throws {
        let first = InMemorySink()
        let second = InMemorySink()
        // Everything at debug, as a user would set it; NAL's own suites log under dev.nal meanwhile, so every
        // query below names this test's subsystem.
        LoggingSystem.bootstrapForTesting(sinks: [first, second], configuration: try .parse("debug"))
        let request = Logger(subsystem: "test.sinks", category: "request")
        let response = Logger(subsystem: "test.sinks", category: "response")
        request.debug("GET \("/a", privacy: .public)")
        response.error("status \(500)")
        #expect(first.entries(subsystem: "test.sinks") == second.entries(subsystem: "test.sinks"))
        #expect(first.messages(subsystem: "test.sinks", category: "request") == ["GET /a"])
        #expect(first.entries(level: .error, subsystem: "test.sinks").map(\.message) == ["status 500"])
        #expect(first.entries(subsystem: "test.sinks", containing: "status").count == 1)
        first.removeAll()
        #expect(first.entries(subsystem: "test.sinks").isEmpty)
    }

    @Test("32 tasks logging to the stderr sink at once never interleave lines")
    func concurrentStandardErrorSink() async throws {
        try await LogCapture.exclusively { try await concurrentStandardErrorSinkBody() }
    }

    func concurrentStandardErrorSinkBody() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nal-log-\(UUID().uuidString)").path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(descriptor >= 0)
        defer { unlink(path) }
        LoggingSystem.bootstrapForTesting(
            sinks: [StandardErrorSink(fileDescriptor: descriptor)],
            configuration: try .parse("test.concurrent=info,*=off"))
        let logger = Logger(subsystem: "test.concurrent", category: "stress")
        let padding = String(repeating: "x", count: 300)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<32 {
                group.addTask {
                    for line in 0..<50 {
                        logger.info("task=\(task) line=\(line) \(padding, privacy: .public) end")
                    }
                }
            }
        }
        close(descriptor)
        LoggingSystem.bootstrapForTesting(sinks: [], configuration: LogConfiguration())
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 32 * 50)
        let pattern =
            /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z info test\.concurrent:stress task=(\d+) line=(\d+) x{300} end$/
        var seen = Set<String>()
        for line in lines {
            guard let match = String(line).wholeMatch(of: pattern) else {
                Issue.record("interleaved or malformed line: \(line.prefix(120))")
                continue
            }
            seen.insert("\(match.1)/\(match.2)")
        }
        #expect(seen.count == 32 * 50)
    }

    @Test("text and JSON lines formats")
    func formats() {
        let entry = LogEntry(
            timestamp: 1_700_000_000.25, level: .notice, subsystem: "dev.nal", category: "request",
            message: "a \"quoted\"\nline")
        #expect(
            StandardErrorSink.format(entry) == "2023-11-14T22:13:20.250Z notice dev.nal:request a \"quoted\"\\nline")
        // On a terminal the headers of a request stand on lines of their own, indented, and a carriage return cannot
        // return to overwrite the entry's start.
        let multiline = LogEntry(
            timestamp: 1_700_000_000.25, level: .notice, subsystem: "dev.nal", category: "request",
            message: "→ GET /x\n  Accept: */*\r2099-01-01T00:00:00.000Z notice forged")
        #expect(
            StandardErrorSink.format(multiline, multiline: true)
                == "2023-11-14T22:13:20.250Z notice dev.nal:request → GET /x\n      Accept: */*\\r2099-01-01T00:00:00.000Z notice forged"
        )
        #expect(
            JSONLinesSink.format(entry)
                == #"{"timestamp":"2023-11-14T22:13:20.250Z","level":"notice","subsystem":"dev.nal","category":"request","message":"a \"quoted\"\nline"}"#
        )
        let data = Data(JSONLinesSink.format(entry).utf8)
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: String]
        #expect(object?["message"] == "a \"quoted\"\nline")
    }

    @Test("NAL's categories live under one subsystem")
    func nalCategories() {
        #expect(Logger(nal: .requestOperation).subsystem == "dev.nal")
        #expect(
            Logger.NALCategory.allCases.map(\.rawValue) == [
                "request_operation", "request", "response", "middleware", "stubbing",
            ])
    }

    @Test("revealing private values is refused under CI")
    func revealUnderCI() async throws {
        try await LogCapture.exclusively { try revealUnderCIBody() }
    }

    func revealUnderCIBody() throws {
        let sink = InMemorySink()
        LoggingSystem.bootstrapForTesting(sinks: [sink], configuration: try .parse("info"))
        LoggingSystem.setRevealPrivateValues(true)
        Logger(subsystem: "test.reveal", category: "x").info("value \("secret")")
        LoggingSystem.setRevealPrivateValues(false)
        let ci = ProcessInfo.processInfo.environment["CI"]?.lowercased()
        let expected = (ci == "true" || ci == "1") ? "value <private>" : "value secret"
        #expect(sink.messages(subsystem: "test.reveal") == [expected])
    }
}
