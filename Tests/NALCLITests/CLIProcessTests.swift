import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the built `nal-cli` executable as a separate process, as a user would.
@Suite("nal-cli as a process")
struct CLIProcessTests {
    struct Result {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// Executables sit next to the test bundle in the build products folder; `NAL_CLI_PATH` overrides nal-cli's; an
    /// absolute path is taken as it is.
    static func executableURL(_ name: String = "nal-cli") throws -> URL {
        if name.hasPrefix("/") { return URL(fileURLWithPath: name) }
        if name == "nal-cli", let path = ProcessInfo.processInfo.environment["NAL_CLI_PATH"] {
            return URL(fileURLWithPath: path)
        }
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "\(name) near \(CommandLine.arguments[0])"])
    }

    static func run(_ arguments: String...) async throws -> Result {
        try await run(executable: "nal-cli", arguments)
    }

    /// Runs an executable and collects its output. The waiting happens on dispatch threads: blocking one of Swift's
    /// few cooperative threads on a child process would stall every other test in the process.
    ///
    /// - Parameters:
    ///   - environment: variables added to this process's environment.
    ///   - keepInputOpen: with `standardInput`, leave the pipe open after writing it, as a terminal would.
    ///   - interrupt: a signal to send after a delay, as a user pressing Ctrl-C would.
    static func run(
        executable: String, _ arguments: [String], standardInput: Data? = nil, environment: [String: String] = [:],
        keepInputOpen: Bool = false, interrupt: (signal: Int32, after: Duration)? = nil
    ) async throws -> Result {
        let process = Process()
        process.executableURL = try executableURL(executable)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        let input = Pipe()
        if standardInput != nil { process.standardInput = input }
        try process.run()
        if let standardInput {
            // A child that exits without reading its input must fail its test, not end this process with SIGPIPE.
            signal(SIGPIPE, SIG_IGN)
            DispatchQueue.global().async {
                try? input.fileHandleForWriting.write(contentsOf: standardInput)
                if !keepInputOpen { try? input.fileHandleForWriting.close() }
            }
        }
        if let interrupt {
            let milliseconds =
                Int(interrupt.after.components.seconds * 1000)
                + Int(interrupt.after.components.attoseconds / 1_000_000_000_000_000)
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) {
                kill(process.processIdentifier, interrupt.signal)
            }
        }
        async let outputData = readToEnd(output)
        async let errorData = readToEnd(error)
        let (standardOutput, standardError) = await (outputData, errorData)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                process.waitUntilExit()
                continuation.resume()
            }
        }
        if keepInputOpen { try? input.fileHandleForWriting.close() }
        return Result(
            status: process.terminationStatus,
            standardOutput: String(decoding: standardOutput, as: UTF8.self),
            standardError: String(decoding: standardError, as: UTF8.self))
    }

    private static func readToEnd(_ pipe: Pipe) async -> Data {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: pipe.fileHandleForReading.readDataToEndOfFile())
            }
        }
    }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let fixtures = repository.appendingPathComponent("Tests/NALStubbingTests/Fixtures")
    static let httpbin = ProcessInfo.processInfo.environment["NAL_HTTPBIN_URL"]
    static let faultServer = ProcessInfo.processInfo.environment["NAL_FAULT_URL"]
    static let faultServerSkipReason: Comment =
        "NAL_FAULT_URL is not set: run scripts/test.sh to start the fault server"

    static func golden(_ name: String) throws -> String {
        try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("Golden/\(name).txt"), encoding: .utf8)
    }

    @Test(
        "help: --help, -h, help and no arguments print the golden overview on stdout with exit 0",
        arguments: [["--help"], ["-h"], ["help"], []])
    func rootHelp(arguments: [String]) async throws {
        let result = try await Self.run(executable: "nal-cli", arguments)
        #expect(result.status == 0 && result.standardError.isEmpty)
        #expect(result.standardOutput == (try Self.golden("nal-cli")))
    }

    @Test(
        "help <command>, <command> --help and <command> -h print the same golden help",
        arguments: [
            ["demo"], ["request"], ["encode"], ["stubs"], ["stubs", "lint"], ["stubs", "match"],
            ["stubs", "import-har"],
            ["stubs", "serve"],
        ])
    func commandHelp(command: [String]) async throws {
        let golden = try Self.golden(command.joined(separator: "-"))
        for arguments in [["help"] + command, command + ["--help"], command + ["-h"], command + ["--bogus", "--help"]] {
            let result = try await Self.run(executable: "nal-cli", arguments)
            #expect(result.status == 0 && result.standardError.isEmpty, "\(arguments)")
            #expect(result.standardOutput == golden, "\(arguments)")
        }
    }

    @Test("options as curl reads them: a value attached to a short option; the last of a repeated option wins")
    func optionForms() async throws {
        let result = try await Self.run(
            "request", "GET", "https://x.test/a", "-qpage=2", "--bearer", "first-token", "--bearer=second-token",
            "--curl", "--reveal")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("https://x.test/a?page=2"), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("Authorization: Bearer second-token"), "\(result.standardOutput)")
        #expect(!result.standardOutput.contains("first-token"))
    }

    @Test("--version prints the version")
    func version() async throws {
        let result = try await Self.run("--version")
        #expect(result.status == 0 && result.standardOutput == "0.4.0\n")
    }

    @Test(
        "usage errors: Error, the usage line and a hint on stderr, exit 64",
        arguments: [
            (["frobnicate"], "unknown subcommand 'frobnicate'", "nal-cli <subcommand>", "nal-cli --help"),
            (["--frobnicate"], "unknown option '--frobnicate'", "nal-cli <subcommand>", "nal-cli --help"),
            (
                ["request"], "missing <method> and <url>", "nal-cli request <method> <url> [<options>]",
                "nal-cli request --help"
            ),
            (
                ["request", "GET", "https://x.test", "--timeout"], "missing value for '--timeout <seconds>'",
                "nal-cli request <method> <url> [<options>]", "nal-cli request --help"
            ),
            (
                ["request", "GET", "https://x.test", "--timeout=soon"],
                "--timeout takes a decimal number of seconds greater than 0, not 'soon'",
                "nal-cli request <method> <url> [<options>]", "nal-cli request --help"
            ),
            (
                ["request", "GET", "https://x.test", "--include=yes"], "the flag '--include' takes no value",
                "nal-cli request <method> <url> [<options>]", "nal-cli request --help"
            ),
            (
                ["request", "GET", "https://x.test", "--json", "a=1", "--form", "b=2"],
                "--json and --form cannot be combined: a request has one body",
                "nal-cli request <method> <url> [<options>]", "nal-cli request --help"
            ),
            (["demo", "--bogus"], "unknown option '--bogus'", "nal-cli demo [--live <url>]", "nal-cli demo --help"),
            (
                ["stubs", "dance"], "unknown subcommand 'dance'; use lint, match, import-har or serve",
                "nal-cli stubs <subcommand>", "nal-cli stubs --help"
            ),
            (
                ["stubs"], "missing subcommand: lint, match, import-har or serve", "nal-cli stubs <subcommand>",
                "nal-cli stubs --help"
            ),
            (
                ["stubs", "lint"], "lint takes one directory",
                "nal-cli stubs lint <dir> [--placeholder <key=value>]...",
                "nal-cli stubs lint --help"
            ),
            (
                ["stubs", "import-har", "a.har"], "import-har takes a HAR file and a directory",
                "nal-cli stubs import-har <file.har> <dir>", "nal-cli stubs import-har --help"
            ),
            (
                ["stubs", "serve", "--host"], "missing value for '--host <address>'",
                "nal-cli stubs serve <path>... [<options>]",
                "nal-cli stubs serve --help"
            ),
            (
                ["help", "stubs", "dance"], "unknown subcommand 'dance' of stubs", "nal-cli stubs <subcommand>",
                "nal-cli stubs --help"
            ),
        ])
    func usageErrors(arguments: [String], message: String, usage: String, help: String) async throws {
        let result = try await Self.run(executable: "nal-cli", arguments)
        #expect(result.status == 64)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError == "Error: \(message)\nUsage: \(usage)\n  See '\(help)' for more information.\n")
    }

    @Test("demo: five steps end to end through stubs and real middleware, secrets redacted, exit 0")
    func demo() async throws {
        let result = try await Self.run("demo")
        #expect(result.status == 0, "\(result.standardError)")
        let output = result.standardOutput
        #expect(output.components(separatedBy: "✓").count - 1 == 5, "\(output)")
        for expected in [
            "signed in as ada after refreshing the expired credentials once",
            "access token refresh started",
            "200 on attempt 2, after waiting the 1 s the server asked for",
            "read pages 1, 2, 3",
            "the server received the field name=Ada Lovelace and the file avatar (2048 characters as echoed)",
            "[##############################] 100% 3.0 MB of 3.0 MB",
            "saved 3000000 bytes to a file",
            "Authorization: Basic <redacted>",
            "All five steps behaved as described.",
        ] {
            #expect(output.contains(expected), "missing: \(expected)")
        }
        for secret in ["YWRhOnMzY3JldA==", "YWRhOmV4cGlyZWQ=", "r3fresh-t0ken-9"] {
            #expect(!output.contains(secret), "\(secret) leaked")
        }
        #expect(!output.contains("\u{1B}["), "no colour when piped")
        #if os(Linux)
            #expect(output.contains("through CurlTransport (Client's default here)"), "\(output)")
        #endif
    }

    @Test("demo: a proxy named by the environment never sees the loopback stubs' requests")
    func demoIgnoresProxies() async throws {
        // Port 9 (discard) on loopback: nothing listens, so a proxied request would fail.
        let result = try await Self.run(
            executable: "nal-cli", ["demo"],
            environment: ["http_proxy": "http://127.0.0.1:9", "no_proxy": "example.com"])
        #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)")
    }

    @Test("demo --live runs the same story against httpbin", .enabled(if: httpbin != nil))
    func demoLive() async throws {
        let result = try await Self.run("demo", "--live", try #require(Self.httpbin))
        #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)")
        #expect(result.standardOutput.components(separatedBy: "✓").count - 1 == 5)
    }

    @Test("JSON bodies are the same bytes in every process: keys sorted, whatever the process's hash seed")
    func deterministicBodiesAcrossProcesses() async throws {
        var outputs: Set<String> = []
        for _ in 0..<4 {
            outputs.insert(
                try await Self.run("encode", "z=1", "a:={\"y\":[1,2],\"b\":true,\"m\":{\"q\":null,\"c\":2}}", "k=v")
                    .standardOutput)
        }
        #expect(outputs.count == 1, "encode printed \(outputs.count) different outputs in 4 processes")
        #expect(outputs.first?.contains(#"{"a":{"b":true,"m":{"c":2,"q":null},"y":[1,2]},"k":"v","z":"1"}"#) == true)
    }

    @Test("encode shows each encoding of the same parameters")
    func encode() async throws {
        let result = try await Self.run("encode", "q=swift nio", "tags:=[\"a\",\"b\"]", "on:=true")
        #expect(result.status == 0)
        #expect(
            result.standardOutput == """
                query, arrays key[]=, bools 1/0 (URLEncoding.default)
                  on=1&q=swift%20nio&tags%5B%5D=a&tags%5B%5D=b
                query, arrays key=
                  on=1&q=swift%20nio&tags=a&tags=b
                query, arrays key[0]=
                  on=1&q=swift%20nio&tags%5B0%5D=a&tags%5B1%5D=b
                query, bools true/false
                  on=true&q=swift%20nio&tags%5B%5D=a&tags%5B%5D=b
                form body (URLEncoding.httpBody)
                  on=1&q=swift%20nio&tags%5B%5D=a&tags%5B%5D=b
                JSON body (JSONEncoding.default)
                  {"on":true,"q":"swift nio","tags":["a","b"]}

                """)
    }

    @Test("stubs lint: each problem as file:line: message, exit 1; clean directories exit 0")
    func stubsLint() async throws {
        let bad = Self.fixtures.appendingPathComponent("tails/bad")
        let result = try await Self.run("stubs", "lint", bad.path)
        #expect(result.status == 1)
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count == 11)
        #expect(
            lines.contains("\(bad.path)/bad-status/bad-status.tail:3: the status 'OK' is not a number from 100 to 599"))
        #expect(lines.last == "10 files checked, 10 problems")

        let good = try await Self.run(
            "stubs", "lint", Self.fixtures.appendingPathComponent("tails/good").path, "--placeholder", "name=Ada",
            "--placeholder=team=x")
        #expect(good.status == 0 && good.standardOutput == "8 files checked, 0 problems\n")

        let hars = try await Self.run("stubs", "lint", Self.fixtures.appendingPathComponent("har").path)
        #expect(hars.status == 1)
        #expect(
            hars.standardOutput.contains(
                "har/brokenfile.har:5:1: not valid JSON: expected ',' or '}' after a value in an object"))
        #expect(hars.standardOutput.hasSuffix("11 files checked, 1 problem\n"))
    }

    @Test("stubs match says which stub answers and why the others do not")
    func stubsMatch() async throws {
        let result = try await Self.run(
            "stubs", "match", Self.fixtures.appendingPathComponent("tails/good").path, "GET",
            "https://api.example.com/api/v1/users/42", "--placeholder", "name=Ada", "--placeholder", "team=x")
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "answers users/user.tail: method pattern GET && URL pattern /api/v1/users/[0-9]+$")
        #expect(
            lines.dropFirst().allSatisfy { !$0.contains("users/user.tail") }, "the answering stub is not a near miss")
        #expect(
            lines.contains(
                "  not catch-all.tail: method pattern GET && URL pattern .*: method pattern GET matched; URL pattern .* "
                    + "matched; it matches too, but a more specific or newer stub answers"))
        let none = try await Self.run(
            "stubs", "match", Self.fixtures.appendingPathComponent("tails/github").path, "POST",
            "https://api.github.com/users/x", "--placeholder", "login=x")
        #expect(
            none.status == 1 && none.standardOutput.hasPrefix("no stub answers POST https://api.github.com/users/x"))
    }

    @Test("stubs import-har turns every real export into .tail files that lint clean and answer their requests")
    func stubsImportHAR() async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("nal-import-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let exports = [
            "chrome", "firefox", "safari", "charles", "insomnia", "with-bom", "postdata",
            "head-content-length", "event_stream", "corrupted_gzip_body",
        ]
        var written = 0
        var skipped = 0
        for name in exports {
            let har = Self.fixtures.appendingPathComponent("har/\(name).har")
            let result = try await Self.run("stubs", "import-har", har.path, output.appendingPathComponent(name).path)
            #expect(result.status == 0, "\(name): \(result.standardError)")
            written += result.standardOutput.split(separator: "\n").filter { $0.hasPrefix("wrote ") }.count
            skipped += result.standardOutput.split(separator: "\n").filter { $0.hasPrefix("skipped entry ") }.count
        }
        // Chrome's export holds one request that failed in the browser (status 0): nothing to replay.
        #expect(written == 43 && skipped == 1)
        let lint = try await Self.run("stubs", "lint", output.path)
        #expect(lint.status == 0 && lint.standardOutput == "43 files checked, 0 problems\n")
        let match = try await Self.run(
            "stubs", "match", output.appendingPathComponent("chrome").path, "GET", "https://mitmproxy.org/")
        #expect(match.standardOutput.hasPrefix("answers 000-get-mitmproxy.org-index.tail"))
        // Each pattern matches its URL exactly: not a longer one, and a query's ? is a character, not a quantifier.
        let longer = try await Self.run(
            "stubs", "match", output.appendingPathComponent("chrome").path, "GET", "https://mitmproxy.org/nothing-here")
        #expect(
            longer.status == 1 && longer.standardOutput.hasPrefix("no stub answers GET"), "\(longer.standardOutput)")
        let query = try await Self.run(
            "stubs", "match", output.appendingPathComponent("charles").path, "GET", "https://mitmproxy.org/?=")
        #expect(query.standardOutput.hasPrefix("answers 000-get-mitmproxy.org-index.tail"), "\(query.standardOutput)")
    }
}

/// `nal-cli request` against the local httpbin and the fault server, as a user runs it.
@Suite(
    "nal-cli request as a process",
    .enabled(
        if: CLIProcessTests.httpbin != nil && CLIProcessTests.faultServer != nil,
        "NAL_HTTPBIN_URL or NAL_FAULT_URL is not set: run scripts/test.sh to start httpbin and the fault server"))
struct CLIRequestTests {
    static var httpbin: String { CLIProcessTests.httpbin ?? "" }
    static var fault: String { CLIProcessTests.faultServer ?? "" }

    static func run(_ arguments: String...) async throws -> CLIProcessTests.Result {
        try await CLIProcessTests.run(executable: "nal-cli", arguments)
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    #if os(Linux)
        @Test("on Linux it sends through CurlTransport: a chunked trailer, which stops a URLSession client, is read")
        func defaultTransport() async throws {
            let result = try await Self.run("request", "GET", "\(Self.fault)/trailer", "--max-time", "20")
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput == "ok")
        }
    #endif

    @Test("GET with query and headers; a JSON body piped is passed through unchanged")
    func get() async throws {
        let result = try await Self.run(
            "request", "GET", "\(Self.httpbin)/get", "-q", "q=swift nio", "-H", "X-Trace: 7")
        #expect(result.status == 0)
        let echo = try Self.json(result.standardOutput)
        #expect((echo["args"] as? [String: String])?["q"] == "swift nio")
        #expect((echo["headers"] as? [String: String])?["X-Trace"] == "7")
    }

    @Test("--sse prints events as they arrive; --stream prints the body; -o with either is a usage error")
    func streaming() async throws {
        // The fault server's "resume" script sends three events, then half of a fourth, then drops the connection:
        // the half event is never printed, and a dropped stream is not a failure of the events already shown.
        let events = try await Self.run("request", "GET", "\(Self.fault)/sse?script=resume&key=\(UUID())", "--sse")
        #expect(events.standardOutput == "id: 1\ndata: event 1\n\nid: 2\ndata: event 2\n\nid: 3\ndata: event 3\n\n")
        #expect(!events.standardOutput.contains("half"))

        let chunks = try await Self.run("request", "GET", "\(Self.httpbin)/stream/3", "-N")
        #expect(chunks.status == 0)
        #expect(chunks.standardOutput.split(separator: "\n").count == 3)

        let plain = try await Self.run("request", "GET", "\(Self.fault)/sse?script=plain&key=\(UUID())", "--sse")
        #expect(plain.status == 1)
        #expect(plain.standardError.contains("text/event-stream"))

        let conflict = try await Self.run("request", "GET", "\(Self.httpbin)/get", "--sse", "-o", "/dev/null")
        #expect(conflict.status == 64)
    }

    @Test("--sse and -N print as the stream goes: a stream that never ends shows its events before Ctrl-C")
    func streamingIsProgressive() async throws {
        for flag in ["--sse", "-N"] {
            let url = "\(Self.fault)/sse?script=endless&interval_ms=50&key=\(UUID())"
            let result = try await CLIProcessTests.run(
                executable: "nal-cli", ["request", "GET", url, flag], interrupt: (SIGINT, .milliseconds(1500)))
            // Printed while the stream ran: an output kept until the end would show nothing, as it never ends.
            #expect(result.standardOutput.contains("data: "), "\(flag) printed nothing before it was interrupted")
        }
    }

    @Test("POST JSON (k=v and k:=json), a form, multipart with a file, and an upload from a file")
    func bodies() async throws {
        let json = try Self.json(
            try await Self.run("request", "POST", "\(Self.httpbin)/post", "--json", "name=Ada", "--json", "n:=3")
                .standardOutput)
        #expect((json["json"] as? [String: Any])?["n"] as? Int == 3)

        let form = try Self.json(
            try await Self.run("request", "POST", "\(Self.httpbin)/post", "--form", "a=1 2").standardOutput)
        #expect((form["form"] as? [String: String])?["a"] == "1 2")

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nal-cli-\(UUID().uuidString).txt")
        try Data("from a file".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let multipart = try Self.json(
            try await Self.run(
                "request", "POST", "\(Self.httpbin)/post", "--multipart", "who=Ada", "--multipart", "doc=@\(file.path)"
            )
            .standardOutput)
        #expect((multipart["form"] as? [String: String])?["who"] == "Ada")
        #expect((multipart["files"] as? [String: String])?["doc"] == "from a file")

        let upload = try Self.json(
            try await Self.run("request", "PUT", "\(Self.httpbin)/put", "--data", "@\(file.path)").standardOutput)
        #expect(upload["data"] as? String == "from a file")
    }

    @Test("-o downloads to a file (no progress bar when piped); -i shows status and headers")
    func downloadAndInclude() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nal-cli-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await Self.run("request", "GET", "\(Self.httpbin)/bytes/40000", "-o", file.path)
        #expect(result.status == 0 && result.standardOutput.isEmpty)
        #expect(result.standardError == "saved \(file.path)\n")
        #expect(try Data(contentsOf: file).count == 40_000)

        let included = try await Self.run("request", "GET", "\(Self.httpbin)/get", "-i")
        #expect(included.standardOutput.hasPrefix("HTTP/1.1 200 "))
        #expect(included.standardOutput.contains("\nContent-Type: application/json\n"))
    }

    @Test("--retry turns a flaky 503 into success; exit codes: 22 for an HTTP error, 28 for a timeout, 1 otherwise")
    func retryAndExitCodes() async throws {
        let key = UUID().uuidString
        let flaky = try await Self.run("request", "GET", "\(Self.fault)/flaky?key=\(key)&failures=2", "--retry", "2")
        #expect(flaky.status == 0 && flaky.standardOutput == "ok after 2")

        let gaveUp = try await Self.run("request", "GET", "\(Self.httpbin)/status/503", "--retry", "1", "-v")
        #expect(gaveUp.status == 22)
        #expect(gaveUp.standardError.contains("attempt 1 of GET /status/503 got 503"))

        #expect(try await Self.run("request", "GET", "\(Self.httpbin)/status/404").status == 22)
        let timeout = try await Self.run("request", "GET", "\(Self.fault)/delay?ms=3000", "--timeout", "0.5")
        #expect(timeout.status == 28)
        #expect(timeout.standardError.contains("timed out"))
        #expect(try await Self.run("request", "GET", "http://127.0.0.1:1/").status == 1)
    }

    @Test("--curl prints the command with secrets redacted unless --reveal; -v logs redact too")
    func curlAndVerbose() async throws {
        let curl = try await Self.run(
            "request", "POST", "\(Self.httpbin)/post", "--bearer", "t0ken-77", "--json", "password=hunter2", "--curl")
        #expect(curl.status == 0)
        #expect(
            curl.standardOutput == """
                curl -X POST \(Self.httpbin)/post \\
                  -H 'Authorization: Bearer <redacted>' \\
                  -H 'Content-Type: application/json' \\
                  --data-raw '{"password":"<redacted>"}'

                """)
        let revealed = try await Self.run(
            "request", "POST", "\(Self.httpbin)/post", "--bearer", "t0ken-77", "--curl", "--reveal")
        #expect(revealed.standardOutput.contains("Bearer t0ken-77"))
        let verbose = try await Self.run("request", "GET", "\(Self.httpbin)/get", "--bearer", "t0ken-77", "-v")
        #expect(verbose.standardError.contains("Authorization: Bearer <redacted>"))
        #expect(!verbose.standardError.contains("t0ken-77"))
    }

    @Test("--stubs answers from fixtures; --record writes a cassette that replays")
    func stubsAndRecord() async throws {
        let stubbed = try await Self.run(
            "request", "GET", "https://api.github.com/users/octocat", "--stubs",
            CLIProcessTests.fixtures.appendingPathComponent("tails/github").path, "--placeholder", "login=octocat")
        #expect(stubbed.status == 0 && stubbed.standardOutput == #"{"login": "octocat", "id": 583231}"# + "\n")
        // A directory's .har files answer too.
        let fromHAR = try await Self.run(
            "request", "GET", "https://api.github.com/zen", "--stubs",
            CLIProcessTests.fixtures.appendingPathComponent("cassettes").path)
        #expect(fromHAR.status == 0 && fromHAR.standardOutput.hasPrefix("Keep it logically awesome."))

        let cassette = FileManager.default.temporaryDirectory.appendingPathComponent("nal-cli-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: cassette) }
        let recorded = try await Self.run("request", "GET", "\(Self.httpbin)/uuid", "--record", cassette.path)
        let replayed = try await Self.run("request", "GET", "\(Self.httpbin)/uuid", "--record", cassette.path)
        #expect(
            recorded.status == 0 && recorded.standardOutput == replayed.standardOutput, "replayed, not fetched again")
    }
}

/// `nal-bench` as a process: its guard against debug builds and its allocation gate's exit codes.
@Suite("nal-bench as a process")
struct BenchProcessTests {
    func thresholds(_ json: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "nal-thresholds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(json.utf8).write(to: directory.appendingPathComponent("test.json"))
        return directory.path
    }

    @Test("a debug build refuses to run without --allow-debug; a release build runs")
    func refusesDebug() async throws {
        let result = try await CLIProcessTests.run(
            executable: "nal-bench", ["--quick", "--filter", "^log\\.disabled$"])
        #if DEBUG
            #expect(result.status == 64)
            #expect(result.standardError.hasPrefix("Error: nal-bench was built in debug mode"))
        #else
            #expect(result.status == 0)
        #endif
    }

    /// Whether this build must count allocations: on glibc without a sanitizer, which links its runtime into this
    /// test process as well (SwiftPM builds every target with it). Decided here, not by asking nal-bench, so that a
    /// broken counter cannot pass as "not countable".
    static var mustCountAllocations: Bool {
        #if canImport(Glibc)
            let process = dlopen(nil, RTLD_NOW)
            let sanitized = dlsym(process, "__tsan_init") != nil || dlsym(process, "__asan_init") != nil
            return !sanitized
        #else
            return false
        #endif
    }

    /// Whether this build counts allocations, read from the benchmark's own JSON output.
    func countsAllocations() async throws -> Bool {
        let result = try await CLIProcessTests.run(
            executable: "nal-bench", ["--allow-debug", "--quick", "--filter", "^log\\.disabled$", "--format", "json"])
        let decoded = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]]
        return decoded?.first?["mallocsPerOp"] is NSNumber
    }

    @Test("--check exits 0 within thresholds and 2 above them; where allocations cannot be counted it says so")
    func gate() async throws {
        let counting = try await countsAllocations()
        #expect(counting == Self.mustCountAllocations, "the allocation counter is off where it must count")
        let generous = try thresholds(#"{"log.disabled": 1000}"#)
        let passing = try await CLIProcessTests.run(
            executable: "nal-bench",
            ["--allow-debug", "--quick", "--filter", "^log\\.disabled$", "--check", "--thresholds", generous])
        #expect(passing.status == 0, "\(passing.standardError)")
        #expect(passing.standardOutput.contains("log.disabled"))
        #expect(passing.standardOutput.contains(counting ? "check: ok   log.disabled" : "allocations not countable"))

        let impossible = try thresholds(#"{"log.disabled": -1}"#)
        let failing = try await CLIProcessTests.run(
            executable: "nal-bench",
            ["--allow-debug", "--quick", "--filter", "^log\\.disabled$", "--check", "--thresholds", impossible])
        if counting {
            #expect(failing.status == 2)
            #expect(failing.standardOutput.contains("check: FAIL log.disabled"))
        } else {
            #expect(failing.status == 0)
            #expect(
                failing.standardOutput.contains(
                    "check: log.disabled: allocations not countable on this platform, skipped"))
        }
    }

    @Test("--check fails when a measured scenario has no threshold, and when a threshold names no scenario")
    func gateFailsOnMissingOrStaleThresholds() async throws {
        let missing = try thresholds(#"{"log.enabled": 1000}"#)
        let withoutThreshold = try await CLIProcessTests.run(
            executable: "nal-bench",
            ["--allow-debug", "--quick", "--filter", "^log\\.disabled$", "--check", "--thresholds", missing])
        #expect(withoutThreshold.status == 2)
        #expect(withoutThreshold.standardOutput.contains("check: FAIL log.disabled: no threshold"))

        let stale = try thresholds(#"{"log.disabled": 1000, "log.renamedAway": 5}"#)
        let staleResult = try await CLIProcessTests.run(
            executable: "nal-bench",
            ["--allow-debug", "--quick", "--filter", "^log\\.disabled$", "--check", "--thresholds", stale])
        #expect(staleResult.status == 2)
        #expect(
            staleResult.standardOutput.contains(
                "check: FAIL log.renamedAway: threshold for a scenario that does not exist"))
    }

    @Test("--format json is machine-readable")
    func json() async throws {
        let result = try await CLIProcessTests.run(
            executable: "nal-bench", ["--allow-debug", "--quick", "--filter", "^log\\.disabled$", "--format", "json"])
        #expect(result.status == 0)
        let decoded = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]]
        #expect(decoded?.first?["name"] as? String == "log.disabled")
        #expect(decoded?.first?["p50"] is Double)
    }

    @Test("usage errors exit 64")
    func usage() async throws {
        let result = try await CLIProcessTests.run(executable: "nal-bench", ["--allow-debug", "--format", "xml"])
        #expect(result.status == 64)
        #expect(result.standardError.hasPrefix("Error: unknown format 'xml'"))
    }
}
