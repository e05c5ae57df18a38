import Foundation
import NALCore
import NALLogging
import NALTestSupport
import Testing

@testable import NALStubbing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Fixture files written by hostile or careless hands.
@Suite("Fixtures under hostile input")
struct FixtureSafetyTests {
    static func scratch() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "nal-fixtures-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static func har(time: String = "12", status: String = "200", method: String = "GET") -> String {
        """
        {"log": {"version": "1.2", "entries": [{"startedDateTime": "2026-01-01T00:00:00Z", "time": \(time),
          "request": {"method": "\(method)", "url": "https://api.example.com/x", "headers": []},
          "response": {"status": \(status), "statusText": "", "headers": [], "content": {"text": "ok"}}}]}}
        """
    }

    @Test("a cassette with huge times and statuses loads (saturated) or fails with a message; replay never traps")
    func hugeNumbers() async {
        await inChildProcess {
            await #expect(processExitsWith: .success) {
                guard let directory = try? FixtureSafetyTests.scratch() else { exit(1) }
                let cassette = directory.appendingPathComponent("huge.har")
                for (time, status) in [
                    ("1e20", "200"), ("-1e300", "200"), ("12", "1e20"), ("12", "-5"), ("1e308", "2e9"),
                ] {
                    guard
                        (try? Data(FixtureSafetyTests.har(time: time, status: status).utf8).write(to: cassette)) != nil
                    else { exit(2) }
                    let recorder = RecordingTransport(
                        cassette: cassette, mode: .replayOnly, wrapping: OfflineTransport())
                    let client = Client<TestEndpoint>(transport: recorder)
                    let base = URL(string: "https://api.example.com") ?? URL(fileURLWithPath: "/")
                    _ = try? await client.request(TestEndpoint(baseURL: base, path: "x", validation: .none))
                    _ = try? StubServer().loadHAR(from: cassette)
                }
                exit(0)
            }
        }
        let server = StubServer()
        let file = try? Self.scratch().appendingPathComponent("status.har")
        guard let file else { return }
        try? Data(Self.har(status: "1e20").utf8).write(to: file)
        #expect(throws: FixtureError.self) { try server.loadHAR(from: file) }
    }

    @Test("a HAR method holding a line break is refused, so import-har cannot write a forged .tail")
    func forgedMethod() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("forged.har")
        try Data(Self.har(method: #"GET\n.*\n200\nX-Evil: 1\n\nforged"#).utf8).write(to: file)
        do {
            try StubServer().loadHAR(from: file)
            Issue.record("a method with a line break was accepted")
        } catch {
            #expect(error.message.contains("request.method"))
        }
    }

    @Test("a failed browser request (status 0) replays as a network error, not a response of status 0")
    func failedEntries() async throws {
        let server = StubServer()
        try server.loadHAR(from: Fixtures.harFile("chrome.har"))
        let text = try String(contentsOf: Fixtures.harFile("chrome.har"), encoding: .utf8)
        let failedURL = try #require(Self.urlOfFirstFailedEntry(in: text))
        await #expect(throws: URLError.self) { _ = try await PlainClient(server).fetch(failedURL) }
    }

    @Test("a HAR entry without a response (a request that never got one) replays as a network error, not status 0")
    func entryWithoutResponse() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("unanswered.har")
        try Data(
            #"{"log": {"version": "1.2", "entries": [{"request": {"method": "GET", "url": "https://api.example.com/lost"}}]}}"#
                .utf8
        ).write(to: file)
        let server = StubServer()
        try server.loadHAR(from: file)
        await #expect(throws: URLError.self) { _ = try await PlainClient(server).fetch("https://api.example.com/lost") }
    }

    static func urlOfFirstFailedEntry(in text: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let entries = (object["log"] as? [String: Any])?["entries"] as? [[String: Any]]
        else { return nil }
        let failed = entries.first { (($0["response"] as? [String: Any])?["status"] as? Int) == 0 }
        return (failed?["request"] as? [String: Any])?["url"] as? String
    }

    @Test("a .tail body with {{ that is not UTF-8 is an error at its line; a header value with a bare CR is refused")
    func tailPlaceholdersAndHeaders() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let binary = directory.appendingPathComponent("binary.tail")
        try (Data("GET\n.*/x\n200\nContent-Type: text/plain\n\n{{ name }}".utf8) + Data([0xFF, 0xFE])).write(to: binary)
        do {
            try StubServer().loadTails(from: directory, placeholders: ["name": "Ada"])
            Issue.record("a non-UTF-8 body with a placeholder loaded")
        } catch {
            #expect(error.line == 6 && error.message.contains("not UTF-8"))
        }
        try FileManager.default.removeItem(at: binary)
        try Data("GET\n.*/x\n200\nX-Split: a\rInjected: b\n\nok".utf8).write(
            to: directory.appendingPathComponent("cr.tail"))
        do {
            try StubServer().loadTails(from: directory)
            Issue.record("a header value with a bare CR loaded")
        } catch {
            #expect(error.line == 4 && error.message.contains("CR"))
        }
    }

    @Test("a .tail header repeated in another letter case joins the first, so ;base64 is read the same every time")
    func tailRepeatedHeaders() throws {
        let text = "GET\n/x\n200\nContent-TYPE: image/png\ncontent-type: text/plain;base64\nX-A: 1\nx-a: 2\n\nb2s="
        let tail = try TailFile(Data(text.utf8), file: URL(fileURLWithPath: "/f.tail"), placeholders: [:])
        #expect(tail.response.headers == ["Content-TYPE": "image/png, text/plain", "X-A": "1, 2"])
        guard case .data(let body) = tail.response.body else { return #expect(Bool(false), "not a data body") }
        #expect(body == Data("ok".utf8))
        let again = try TailFile(tail.contents, file: URL(fileURLWithPath: "/f.tail"), placeholders: [:])
        guard case .data(let bodyAgain) = again.response.body else { return #expect(Bool(false), "not a data body") }
        #expect(again.response.headers == tail.response.headers && bodyAgain == body)
    }

    @Test("a body whose own type ends in ;base64 is written so that it loads back as it was, type and bytes")
    func typeEndingInBase64() throws {
        let contents = TailFile.contents(
            methodPattern: "GET", urlPattern: "^https://a\\.example\\.com/x$", status: 200,
            headers: ["Content-Type": "text/plain;base64"], body: Data("hello, not base64 {".utf8))
        let tail = try TailFile(contents, file: URL(fileURLWithPath: "/x.tail"), placeholders: [:])
        #expect(tail.response.headers["Content-Type"] == "text/plain;base64")
        guard case .data(let body) = tail.response.body else { return #expect(Bool(false), "not a data body") }
        #expect(body == Data("hello, not base64 {".utf8))
    }

    @Test("HAR files with numbers out of range or bytes that are not UTF-8 say so, at their line")
    func preciseMessages() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        /// What loading `bytes` from a file says; an issue, and `nil`, when it loads.
        func failure(loading bytes: Data, _ what: String) throws -> FixtureError? {
            let file = directory.appendingPathComponent("bad.har")
            try bytes.write(to: file)
            do {
                try StubServer().loadHAR(from: file)
                Issue.record("\(what) loaded")
                return nil
            } catch {
                return error
            }
        }
        let big = try failure(loading: Data(Self.har(time: "1e400").utf8), "a HAR time of 1e400")
        #expect(big?.line == 1 && big?.message.contains("too large") == true, "\(String(describing: big))")
        let latin1 = try failure(
            loading: Data(#"{"log": {"entries": [], "comment": "caf"#.utf8) + Data([0xE9]) + Data(#""}}"#.utf8),
            "a HAR file that is not UTF-8")
        #expect(latin1?.message.contains("UTF-8") == true, "\(String(describing: latin1))")
        // An overlong form of '/' and an encoded UTF-16 surrogate are byte sequences UTF-8 forbids.
        for forbidden: [UInt8] in [[0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80]] {
            let error = try failure(
                loading: Data(#"{"log": {"entries": [], "comment": "a"#.utf8) + Data(forbidden) + Data(#""}}"#.utf8),
                "a HAR file with the bytes \(forbidden)")
            #expect(error?.line == 1 && error?.column == 38, "\(String(describing: error))")
            #expect(error?.message.contains("are not valid UTF-8") == true, "\(String(describing: error))")
        }
    }
}
