import Foundation
import Testing

/// What a curl user expects of `nal-cli request`: the server's status line, a User-Agent with NAL's version, `-O`
/// and `--output-dir`, a choice of transport, timeouts named by their options, and `-v` readable on a terminal.
@Suite(
    "nal-cli request as a curl user expects it",
    .enabled(
        if: CLIProcessTests.httpbin != nil && CLIProcessTests.faultServer != nil,
        "NAL_HTTPBIN_URL or NAL_FAULT_URL is not set: run scripts/test.sh to start httpbin and the fault server"))
struct CLIRequestFirstHourTests {
    static var httpbin: String { CLIRequestTests.httpbin }
    static var fault: String { CLIRequestTests.fault }

    static func run(_ arguments: String...) async throws -> CLIProcessTests.Result {
        try await CLIProcessTests.run(executable: "nal-cli", arguments)
    }

    /// A fresh empty directory, removed by the caller.
    static func scratchDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nal-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    #if os(Linux)
        @Test("-i prints the status line as the server sent it: its version and reason phrase, none made up")
        func statusLineAsSent() async throws {
            let ok = try await Self.run("request", "GET", "\(Self.httpbin)/get", "-i")
            #expect(ok.standardOutput.hasPrefix("HTTP/1.1 200 OK\n"), "\(ok.standardOutput.prefix(40))")
            let custom = try await Self.run("request", "GET", "\(Self.fault)/status/299?reason=All%20Good", "-i")
            #expect(custom.standardOutput.hasPrefix("HTTP/1.1 299 All Good\n"), "\(custom.standardOutput.prefix(40))")
            // An escape sequence in the phrase never reaches the terminal.
            let hostile = try await Self.run(
                "request", "GET", "\(Self.fault)/status/200?reason=%1B%5B2JGone%07", "-i")
            #expect(hostile.standardOutput.hasPrefix("HTTP/1.1 200 [2JGone\n"), "\(hostile.standardOutput.prefix(40))")
            #expect(!hostile.standardOutput.contains("\u{1B}"))
        }
    #endif

    @Test("--transport urlsession prints no reason phrase it cannot know; --transport takes curl or urlsession only")
    func transportChoice() async throws {
        let session = try await Self.run("request", "GET", "\(Self.httpbin)/get", "-i", "--transport", "urlsession")
        #expect(session.status == 0)
        #expect(session.standardOutput.hasPrefix("HTTP 200\n"), "\(session.standardOutput.prefix(40))")
        #if os(Linux)
            // A chunked trailer stops URLSession's client on Linux and not libcurl: which one sent is visible.
            let curl = try await Self.run("request", "GET", "\(Self.fault)/trailer", "--transport", "curl")
            #expect(curl.status == 0, "\(curl.standardError)")
            let viaSession = try await Self.run(
                "request", "GET", "\(Self.fault)/trailer", "--transport", "urlsession", "--max-time", "3")
            #expect(viaSession.status != 0)
        #endif
        let bad = try await Self.run("request", "GET", "\(Self.httpbin)/get", "--transport", "nio")
        #expect(bad.status == 64)
        #expect(bad.standardError.hasPrefix("Error: --transport takes curl or urlsession, not 'nio'\n"))
        let withStubs = try await Self.run(
            "request", "GET", "https://api.example.com/x", "--stubs", "/tmp", "--transport", "curl")
        #expect(withStubs.status == 64)
    }

    @Test("the User-Agent is nal-cli's with NAL's version, unless -H sets one")
    func userAgent() async throws {
        let version = try await Self.run("--version")
        let sent = try CLIRequestTests.json(
            try await Self.run("request", "GET", "\(Self.httpbin)/headers").standardOutput)
        let headers = try #require(sent["headers"] as? [String: String])
        #expect(headers["User-Agent"] == "nal-cli/\(version.standardOutput.trimmingCharacters(in: .newlines))")
        let own = try CLIRequestTests.json(
            try await Self.run("request", "GET", "\(Self.httpbin)/headers", "-H", "user-agent: mine/1").standardOutput)
        #expect((own["headers"] as? [String: String])?["User-Agent"] == "mine/1")
    }

    @Test("-O saves under the URL's file name, in --output-dir when given; -o dir/ (refused by curl) does the same")
    func remoteName() async throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let saved = try await Self.run(
            "request", "GET", "\(Self.httpbin)/bytes/321", "-O", "--output-dir", directory.path)
        #expect(saved.status == 0, "\(saved.standardError)")
        #expect(try Data(contentsOf: directory.appendingPathComponent("321")).count == 321)

        let intoDirectory = try await Self.run(
            "request", "GET", "\(Self.httpbin)/base64/bmFs", "-o", directory.path + "/")
        #expect(intoDirectory.status == 0, "\(intoDirectory.standardError)")
        #expect(try String(contentsOf: directory.appendingPathComponent("bmFs"), encoding: .utf8) == "nal")

        let newDirectory = try await Self.run(
            "request", "GET", "\(Self.httpbin)/base64/bmV3", "-o", directory.path + "/made/")
        #expect(newDirectory.status == 0, "\(newDirectory.standardError)")
        #expect(try String(contentsOf: directory.appendingPathComponent("made/bmV3"), encoding: .utf8) == "new")

        let existingDirectory = try await Self.run(
            "request", "GET", "\(Self.httpbin)/bytes/7", "-o", directory.path)
        // curl fails to write there (exit 23); NAL says how to save inside it.
        #expect(existingDirectory.status == 64)
        #expect(
            existingDirectory.standardError.hasPrefix(
                "Error: '\(directory.path)' is a directory; write '\(directory.path)/'"))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("7").path))

        let relative = try await Self.run(
            "request", "GET", "\(Self.httpbin)/bytes/5", "-o", "five.bin", "--output-dir", directory.path)
        #expect(relative.status == 0)
        #expect(try Data(contentsOf: directory.appendingPathComponent("five.bin")).count == 5)
    }

    @Test(
        "-O refuses a URL without a file name, and combinations that cannot mean anything (curl ignores a lone --output-dir)",
        arguments: [
            (
                ["/", "-O"],
                "the URL '\(CLIRequestTests.httpbin)/' has no file name to save under; name the file with -o"
            ),
            (["/bytes/1", "-O", "-o", "x"], "-o and -O both name the file; give one of them"),
            (["/bytes/1", "--output-dir", "/tmp"], "--output-dir says where -o and -O save; give one of them"),
            (
                ["/bytes/1", "-O", "--stream"],
                "--stream and --sse print to standard output; they cannot be used with --output"
            ),
        ])
    func remoteNameRefused(arguments: [String], message: String) async throws {
        let result = try await CLIProcessTests.run(
            executable: "nal-cli", ["request", "GET", "\(Self.httpbin)\(arguments[0])"] + arguments.dropFirst())
        #expect(result.status == 64)
        #expect(result.standardError.hasPrefix("Error: \(message)\n"), "\(result.standardError)")
    }

    @Test("a timeout names the option that sets it: --max-time for the total, --timeout for the idle limit")
    func timeoutsNameTheirOptions() async throws {
        let total = try await Self.run("request", "GET", "\(Self.fault)/delay?ms=3000", "--max-time", "0.5")
        #expect(total.status == 28)
        #expect(total.standardError.contains("within 0.5 s. Raise --max-time"), "\(total.standardError)")
        #expect(!total.standardError.contains("RequestOptions"))
        let idle = try await Self.run("request", "GET", "\(Self.fault)/delay?ms=3000", "--timeout", "0.5")
        #expect(idle.status == 28)
        #expect(idle.standardError.contains("for 0.5 s. Raise --timeout"), "\(idle.standardError)")
    }

    @Test("-v shows each header on a line of its own, secrets redacted, and a server's control characters escaped")
    func verboseIsReadable() async throws {
        let result = try await Self.run(
            "request", "GET", "\(Self.fault)/status/200?header=X-Odd:a%1B%5B31mb", "-v", "--bearer", "s3cret")
        #expect(result.status == 0)
        let lines = result.standardError.split(separator: "\n").map(String.init)
        #expect(lines.contains("    Authorization: Bearer <redacted>"), "\(lines)")
        #expect(lines.contains("    X-Odd: a\\u{1B}[31mb"), "\(lines)")
        #expect(!result.standardError.contains("\\n"))
        #expect(!result.standardError.contains("s3cret"))
        // Each entry starts with its UTC time of day, to the millisecond.
        let stamped = lines.filter { $0.contains(" notice ") }
        #expect(stamped.count == 2)
        for line in stamped {
            #expect(line.wholeMatch(of: /\d\d:[0-5]\d:[0-5]\d\.\d{3}Z notice (request|response) .*/) != nil, "\(line)")
        }
        #expect(!result.standardError.contains("\u{1B}"))
        #expect(
            lines.contains { $0.hasSuffix(" notice request → GET \(Self.fault)/status/200?header=X-Odd:a%1B%5B31mb") })
    }
}
