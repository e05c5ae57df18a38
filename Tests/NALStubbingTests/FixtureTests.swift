import Foundation
import NALCore
import NALStubbing
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The fixture files under `Tests/NALStubbingTests/Fixtures`.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let goodTails = root.appendingPathComponent("tails/good")
    static let badTails = root.appendingPathComponent("tails/bad")
    static let har = root.appendingPathComponent("har")

    static func harFile(_ name: String) -> URL { har.appendingPathComponent(name) }
}

@Suite("Mocktail .tail fixtures")
struct TailFixtureTests {
    static let placeholders = ["name": "Ada", "team": "engines"]

    func fetch(
        _ server: StubServer, _ method: String, _ url: String
    ) async throws -> (status: Int, body: Data, headers: [String: String]) {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = method
        let (data, response) = try await URLSession(configuration: server.sessionConfiguration).data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields { headers["\(name)"] = "\(value)" }
        return (http.statusCode, data, headers)
    }

    @Test("a directory loads recursively; placeholders, CRLF, base64, ':' in headers; longest pattern wins")
    func goodDirectory() async throws {
        let server = StubServer()
        let handles = try server.loadTails(from: Fixtures.goodTails, placeholders: Self.placeholders)
        #expect(handles.count == 8)
        let base = "https://api.example.com"

        let user = try await fetch(server, "GET", "\(base)/api/v1/users/42")
        #expect(user.status == 200)
        #expect(String(decoding: user.body, as: UTF8.self) == #"{"id": 42, "name": "Ada", "team": "engines"}"# + "\n")
        #expect(user.headers["X-Served-By"] == "user.tail")

        let list = try await fetch(server, "GET", "\(base)/api/v1/users")
        #expect(String(decoding: list.body, as: UTF8.self) == #"[{"id": 1, "name": "Ada"}]"# + "\n")

        // CRLF file: the headers parse and the body is the bytes after the blank line.
        let created = try await fetch(server, "POST", "\(base)/api/v1/users")
        #expect(created.status == 201 && created.headers["Location"] == "/api/v1/users/43")
        #expect(created.body == Data("{\"id\": 43}\r\n".utf8))

        // Base64, decoded once at load: the second request gets the same bytes.
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
        for _ in 0..<2 {
            let avatar = try await fetch(server, "GET", "\(base)/api/v1/avatars/ada.png")
            #expect(avatar.body == png && avatar.headers["Content-Type"] == "image/png")
        }
        #expect(try await fetch(server, "HEAD", "\(base)/api/v1/avatars/ada.png").status == 200)

        let links = try await fetch(server, "GET", "\(base)/api/v1/links")
        #expect(links.headers["Link"] == #"<https://api.example.com/v1/links?page=2>; rel="next""#)
        #expect(links.headers["X-Time"] == "12:30:45")

        // The catch-all (.*) loses to every longer pattern, and answers the rest.
        #expect(try await fetch(server, "GET", "\(base)/elsewhere").status == 404)
        // Equal lengths: the file whose path sorts first (tie/a.tail) wins.
        #expect(
            String(decoding: try await fetch(server, "GET", "\(base)/api/v1/tie/one").body, as: UTF8.self) == "from a\n"
        )
    }

    @Test(".tail stubs, found by a piece of their URL, no longer answer once removed")
    func removedTail() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, pattern) in [("one", "/api/v1/users/[0-9]+$"), ("two", "/api/v1/teams/[a-z]+$")] {
            try Data("GET\n\(pattern)\n200\nContent-Type: text/plain\n\n\(name)".utf8)
                .write(to: directory.appendingPathComponent("\(name).tail"))
        }
        let server = StubServer()
        let handles = try server.loadTails(from: directory)
        #expect(handles.count == 2)
        let base = "https://api.example.com"
        #expect(try await fetch(server, "GET", "\(base)/api/v1/users/42").body == Data("one".utf8))
        #expect(try await fetch(server, "GET", "\(base)/api/v1/teams/core").body == Data("two".utf8))
        for handle in handles { server.remove(handle) }
        await #expect(throws: URLError.self) { try await fetch(server, "GET", "\(base)/api/v1/users/42") }
        await #expect(throws: URLError.self) { try await fetch(server, "GET", "\(base)/api/v1/teams/core") }
    }

    @Test(
        "each bad file is a FixtureError with its file:line and the exact problem",
        arguments: [
            ("empty", 1, "expected a method pattern (such as GET) on line 1"),
            ("bad-method-regex", 1, "the method pattern 'GE(T' is not a valid regular expression"),
            ("missing-url", 2, "expected a URL pattern on line 2"),
            ("bad-url-regex", 2, "the URL pattern '/users/[0-9' is not a valid regular expression"),
            ("bad-status", 3, "the status 'OK' is not a number from 100 to 599"),
            (
                "header-without-colon", 4,
                "the header line 'Content-Type application/json' has no ':'; end the headers with a blank line"
            ),
            ("bad-header-name", 4, "'Bad Name' is not a valid header name"),
            (
                "unknown-placeholder", 8,
                "the placeholder 'mood' has no value; pass it in placeholders (given: name, team)"
            ),
            ("bad-base64", 6, "the body is marked ;base64 but is not valid base64"),
            ("unclosed-placeholder", 5, "a placeholder opens with '{{' but never closes with '}}'"),
        ])
    func badFiles(name: String, line: Int, message: String) throws {
        let directory = Fixtures.badTails.appendingPathComponent(name)
        let file = directory.appendingPathComponent("\(name).tail")
        let server = StubServer()
        #expect(throws: FixtureError(file: file, line: line, message: message)) {
            try server.loadTails(from: directory, placeholders: Self.placeholders)
        }
        do {
            try server.loadTails(from: directory, placeholders: Self.placeholders)
        } catch {
            #expect(error.description == "\(file.path):\(line): \(message)")
        }
    }

    @Test("a fixtures path that is missing, even under a regular file, says so; a file says it is one")
    func badDirectories() throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("plain.txt")
        try Data("x".utf8).write(to: file)
        for (path, problem) in [
            (directory.appendingPathComponent("none"), "does not exist"),
            (file.appendingPathComponent("inner"), "does not exist"),
            (file, "is a file"),
        ] {
            #expect(throws: FixtureError(file: path, message: "\(problem): name a directory of .tail files")) {
                try StubServer().loadTails(from: path)
            }
        }
    }

    @Test("a .tail file cut short at every byte loads or fails with a FixtureError, never crashes")
    func truncatedAtEveryByte() throws {
        let whole = try Data(contentsOf: Fixtures.goodTails.appendingPathComponent("users/user.tail"))
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cut.tail")
        var loaded = 0
        var failed = 0
        for length in 0...whole.count {
            try whole.prefix(length).write(to: file)
            do {
                try StubServer().loadTails(from: directory, placeholders: Self.placeholders)
                loaded += 1
            } catch {
                #expect(error.file == file && error.line != nil)
                failed += 1
            }
        }
        #expect(loaded + failed == whole.count + 1)
        #expect(loaded > 0 && failed > 0)
    }
}

@Suite("HAR fixtures")
struct HARFixtureTests {
    @Test(
        "real exports load and serve their entries",
        arguments: [
            ("chrome.har", 3), ("firefox.har", 14), ("safari.har", 19), ("charles.har", 1), ("insomnia.har", 1),
            ("with-bom.har", 1), ("postdata.har", 1), ("head-content-length.har", 1), ("event_stream.har", 2),
            ("corrupted_gzip_body.har", 1),
        ])
    func realExports(file: String, entries: Int) async throws {
        let server = StubServer()
        let handles = try server.loadHAR(from: Fixtures.harFile(file))
        #expect(handles.count <= entries && !handles.isEmpty)
        let session = URLSession(configuration: server.sessionConfiguration)
        let document = try JSONSerialization.jsonObject(
            with: Data(try Data(contentsOf: Fixtures.harFile(file)).drop { $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }))
        let first = try #require(
            ((document as? [String: Any])?["log"] as? [String: Any])?["entries"] as? [[String: Any]])[0]
        let recorded = try #require(first["request"] as? [String: Any])
        let urlText = try #require(recorded["url"] as? String)
        var request = URLRequest(url: try #require(URL(string: urlText)))
        request.httpMethod = recorded["method"] as? String
        let (_, response) = try await session.data(for: request)
        let status = try #require((first["response"] as? [String: Any])?["status"] as? Int)
        #expect((response as? HTTPURLResponse)?.statusCode == status)
    }

    @Test("bodies, base64 and headers replay as recorded; framing headers are NAL's; repeats replay in order")
    func replayDetails() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let har = directory.appendingPathComponent("made.har")
        try Data(
            #"""
            {"log": {"version": "1.2", "entries": [
              {"request": {"method": "GET", "url": "https://api.example.com/items?b=2&a=1"},
               "response": {"status": 200, "headers": [{"name": "Content-Length", "value": "-1"},
                 {"name": "Transfer-Encoding", "value": "chunked"}, {"name": "X-Page", "value": "1"}],
                 "content": {"size": -1, "mimeType": "text/plain", "text": "first"}}},
              {"request": {"method": "GET", "url": "https://api.example.com/items?a=1&b=2"},
               "response": {"status": 200, "content": {"text": "c2Vjb25k", "encoding": "base64"}}},
              {"request": {"method": "POST", "url": "https://api.example.com/items"},
               "response": {"status": 201}}
            ]}}
            """#.utf8
        ).write(to: har)
        let server = StubServer()
        #expect(try server.loadHAR(from: har).count == 2)
        let session = URLSession(configuration: server.sessionConfiguration)
        let url = try #require(URL(string: "https://api.example.com/items?a=1&b=2"))
        var bodies: [String] = []
        for _ in 0..<3 {
            let (data, response) = try await session.data(from: url)
            bodies.append(String(decoding: data, as: UTF8.self))
            #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Transfer-Encoding") == nil)
        }
        #expect(bodies == ["first", "second", "second"], "in order, and the last repeats")
        var post = URLRequest(url: try #require(URL(string: "https://api.example.com/items")))
        post.httpMethod = "POST"
        #expect((try await session.data(for: post).1 as? HTTPURLResponse)?.statusCode == 201)
    }

    @Test("a repeated response header replays joined with ', '; a lower-case method replays as its standard form")
    func repeatedHeadersAndMethodCase() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let har = directory.appendingPathComponent("repeats.har")
        try Data(
            #"""
            {"log": {"version": "1.2", "entries": [
              {"request": {"method": "post", "url": "https://api.example.com/items"},
               "response": {"status": 201, "headers": [{"name": "Vary", "value": "Accept"},
                 {"name": "vary", "value": "Origin"}, {"name": "X-One", "value": "1"}],
                 "content": {"text": "made"}}}
            ]}}
            """#.utf8
        ).write(to: har)
        let entries = try HARReader.entries(of: Data(contentsOf: har), file: har)
        #expect(entries.map(\.method) == ["POST"], "import-har writes the method into a .tail file's method pattern")
        let server = StubServer()
        #expect(try server.loadHAR(from: har).count == 1)
        var post = URLRequest(url: try #require(URL(string: "https://api.example.com/items")))
        post.httpMethod = "POST"
        let (data, response) = try await URLSession(configuration: server.sessionConfiguration).data(for: post)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 201 && String(decoding: data, as: UTF8.self) == "made")
        #expect(http.value(forHTTPHeaderField: "Vary") == "Accept, Origin")
        #expect(http.value(forHTTPHeaderField: "X-One") == "1")
    }

    @Test(
        "matchingBody: entries that differ only by their body each answer their own body, whatever the order; base64 too"
    )
    func matchingBody() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let har = directory.appendingPathComponent("bodies.har")
        try Data(
            #"""
            {"log": {"version": "1.2", "entries": [
              {"request": {"method": "POST", "url": "https://api.example.com/search",
                 "postData": {"mimeType": "text/plain", "text": "q=a"}},
               "response": {"status": 200, "content": {"text": "for a"}}},
              {"request": {"method": "POST", "url": "https://api.example.com/search",
                 "postData": {"mimeType": "text/plain", "text": "q=b"}},
               "response": {"status": 200, "content": {"text": "for b"}}},
              {"request": {"method": "POST", "url": "https://api.example.com/search",
                 "postData": {"mimeType": "application/octet-stream", "text": "cT1j", "encoding": "base64"}},
               "response": {"status": 200, "content": {"text": "for c"}}}
            ]}}
            """#.utf8
        ).write(to: har)
        let server = StubServer()
        #expect(try server.loadHAR(from: har, matchingBody: true).count == 3)
        let session = URLSession(configuration: server.sessionConfiguration)
        var answers: [String] = []
        for query in ["q=a", "q=b", "q=a", "q=c"] {
            var post = URLRequest(url: try #require(URL(string: "https://api.example.com/search")))
            post.httpMethod = "POST"
            post.httpBody = Data(query.utf8)
            answers.append(String(decoding: try await session.data(for: post).0, as: UTF8.self))
        }
        #expect(answers == ["for a", "for b", "for a", "for c"], "a base64 postData matches its decoded bytes")
    }

    @Test(
        "JSON syntax errors name their line, column and problem",
        arguments: [
            (#"{"log": [1, 2}"#, 1, 14, "expected ',' or ']' after a value in an array"),
            ("{\n  \"log\": {\"entries\": [\n", 3, 1, "the text ends where a value was expected"),
            ("{\"log\": \"a\u{1}b\"}", 1, 11, "a control character inside a string; escape it"),
            (#"{"log": {}} x"#, 1, 13, "unexpected text after the JSON value"),
            (#"{"log" {}}"#, 1, 8, "expected ':' after the key"),
            (#"{"log": [1,]}"#, 1, 12, "unexpected character ']' where a value was expected"),
            (String(repeating: "[", count: 600), 1, 513, "nested more than 512 levels deep"),
            // Columns count characters, not UTF-8 bytes, and a byte-order mark is not one.
            (#"{"café": 1 x}"#, 1, 12, "expected ',' or '}' after a value in an object"),
            ("\u{FEFF}{\"log\" {}}", 1, 8, "expected ':' after the key"),
            (#"{"log": 01}"#, 1, 10, "expected ',' or '}' after a value in an object"),
            (#"{"log": "\uDC00"}"#, 1, 16, "a UTF-16 low surrogate (\\u) without its high one"),
        ])
    func syntaxErrors(text: String, line: Int, column: Int, message: String) throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("bad.har")
        try Data(text.utf8).write(to: file)
        #expect(throws: FixtureError(file: file, line: line, column: column, message: "not valid JSON: \(message)")) {
            try StubServer().loadHAR(from: file)
        }
    }

    @Test("a HAR file cut short anywhere fails with a located FixtureError, never crashes")
    func truncatedHAR() throws {
        let whole = try Data(contentsOf: Fixtures.harFile("chrome.har"))
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cut.har")
        // About 30 cuts: each one is parsed synchronously, and a debug build parses slowly.
        for length in stride(from: 0, to: whole.count, by: 2003) {
            try whole.prefix(length).write(to: file)
            #expect(throws: FixtureError.self) { try StubServer().loadHAR(from: file) }
        }
        try whole.write(to: file)
        #expect(try StubServer().loadHAR(from: file).count == 3)
    }

    @Test("broken JSON is an error with the line and column")
    func brokenFile() throws {
        let file = Fixtures.harFile("brokenfile.har")
        do {
            try StubServer().loadHAR(from: file)
            Issue.record("a broken HAR file loaded")
        } catch {
            #expect(error.line == 5 && error.column == 1)
            #expect(
                error.description == "\(file.path):5:1: not valid JSON: expected ',' or '}' after a value in an object")
        }
    }
}

@Suite("HAR export")
struct HARExportTests {
    /// The fields HAR 1.2 requires, checked on a decoded export.
    static func validate(_ data: Data) throws {
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let log = try #require(root["log"] as? [String: Any])
        #expect(log["version"] as? String == "1.2")
        let creator = try #require(log["creator"] as? [String: Any])
        #expect(creator["name"] is String && creator["version"] is String)
        for entry in try #require(log["entries"] as? [[String: Any]]) {
            #expect(entry["startedDateTime"] is String)
            #expect(((entry["time"] as? NSNumber)?.doubleValue ?? -1) >= 0)
            #expect(entry["cache"] is [String: Any])
            let timings = try #require(entry["timings"] as? [String: Any])
            for key in ["send", "wait", "receive"] { #expect(((timings[key] as? NSNumber)?.doubleValue ?? -2) >= -1) }
            let request = try #require(entry["request"] as? [String: Any])
            for key in ["method", "url", "httpVersion"] { #expect(request[key] is String, "request.\(key)") }
            for key in ["cookies", "headers", "queryString"] { #expect(request[key] is [Any], "request.\(key)") }
            for key in ["headersSize", "bodySize"] { #expect(request[key] is NSNumber, "request.\(key)") }
            let response = try #require(entry["response"] as? [String: Any])
            for key in ["statusText", "httpVersion", "redirectURL"] { #expect(response[key] is String) }
            for key in ["status", "headersSize", "bodySize"] { #expect(response[key] is NSNumber) }
            for key in ["cookies", "headers"] { #expect(response[key] is [Any]) }
            let content = try #require(response["content"] as? [String: Any])
            #expect(content["size"] is NSNumber && content["mimeType"] is String)
        }
    }

    @Test("a StubServer journal exports as valid HAR 1.2, secrets redacted, and loads back as stubs")
    func exportJournal() async throws {
        let server = StubServer()
        server.stub(.path("/v1/users/1"), response: .json(["id": 1]))
        let client = server.client()
        _ = try await client.request(
            TestEndpoint(path: "users/1", headers: ["Authorization": "Bearer s3cr3t-token"]))
        _ = try? await client.request(TestEndpoint(path: "unmatched"))
        let har = server.exportHAR()
        try Self.validate(har)
        let text = String(decoding: har, as: UTF8.self)
        #expect(!text.contains("s3cr3t-token"))
        #expect(text.contains("Bearer <redacted>"))

        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("journal.har")
        try har.write(to: file)
        let replay = StubServer()
        try replay.loadHAR(from: file)
        #expect(try await replay.client().request(TestEndpoint(path: "users/1")).string() == #"{"id":1}"#)
    }

    @Test("an exported journal keeps each request's body, its secret fields redacted")
    func exportJournalBodies() async throws {
        let server = StubServer()
        server.stub(.path("/v1/login"), response: .json(["ok": true]))
        _ = try await server.client().request(
            TestEndpoint(
                path: "login", method: .post,
                requestType: .parameters(["user": "ada", "password": "hunter2"], encoding: JSONEncoding.default)))
        let har = server.exportHAR()
        try Self.validate(har)
        let document = try #require(try JSONSerialization.jsonObject(with: har) as? [String: Any])
        let entries = try #require((document["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        let request = try #require(entries.first?["request"] as? [String: Any])
        let text = try #require((request["postData"] as? [String: Any])?["text"] as? String)
        #expect(text.contains(#""user":"ada""#) && !text.contains("hunter2"), "\(text)")
    }
}
