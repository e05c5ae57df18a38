import Foundation
import Testing

/// `nal-cli` given hostile or unusual arguments, as a process.
@Suite("nal-cli under hostile arguments")
struct CLISafetyTests {
    @Test("--retry takes 0 to 100: a huge or negative count is a usage error (64), never an overflow")
    func retryBounds() async throws {
        for count in ["9223372036854775807", "101", "-1", "1e3"] {
            let result = try await CLIProcessTests.run("request", "GET", "http://127.0.0.1:9/", "--retry", count)
            #expect(result.status == 64, "--retry \(count): \(result.standardError)")
            #expect(result.standardError.contains("--retry takes a whole number from 0 to 100"))
        }
    }

    @Test("an invalid request exits 64, as a usage error")
    func invalidRequestExitCode() async throws {
        let result = try await CLIProcessTests.run("request", "GET", "http://127.0.0.1:9/", "-H", "X-Bad: a\u{7}b")
        #expect(result.status == 64, "\(result.standardError)")
    }

    @Test("--curl redacts a password in an untyped --data body, as it does a form")
    func curlRedactsUntypedData() async throws {
        let result = try await CLIProcessTests.run(
            "request", "POST", "https://api.example.com/login", "--data", "user=ada&password=D1", "--curl")
        #expect(result.status == 0)
        #expect(!result.standardOutput.contains("D1") && result.standardOutput.contains("password=<redacted>"))
    }

    @Test("encode names what is wrong with a := value: too deep is not the same mistake as a typo")
    func encodeMessages() async throws {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        let result = try await CLIProcessTests.run("encode", "a:=\(deep)")
        #expect(result.status == 64 && result.standardError.contains("nested 600 levels deep"))
        let typo = try await CLIProcessTests.run("encode", "a:=[1,")
        #expect(typo.status == 64 && typo.standardError.contains("is not valid JSON"))
    }

    /// A temporary directory of the test's own, for a child's `TMPDIR`: what the child leaves there is its own.
    static func privateTemporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "nal-cli-tmp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test(
        "--data @- and @/dev/stdin send standard input, read whole first as curl does, with its length; no copy is left",
        .enabled(if: CLIProcessTests.faultServer != nil, CLIProcessTests.faultServerSkipReason))
    func standardInput() async throws {
        let fault = try #require(CLIProcessTests.faultServer)
        let temporary = try Self.privateTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: temporary) }
        let body = Data((0..<300_000).map { UInt8($0 % 253) })
        for source in ["@-", "@/dev/stdin"] {
            let result = try await CLIProcessTests.run(
                executable: "nal-cli", ["request", "PUT", "\(fault)/sink", "--data", source, "--max-time", "20"],
                standardInput: body, environment: ["TMPDIR": temporary.path])
            #expect(result.status == 0, "\(source): \(result.standardError)")
            let sink = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
            #expect(sink?["bytes"] as? Int == body.count, "\(source)")
        }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty, "spooled copies are removed")
    }

    @Test(
        "Ctrl-C ends a download with status 130 and no partial file; while reading standard input, with no copy left",
        .enabled(if: CLIProcessTests.faultServer != nil, CLIProcessTests.faultServerSkipReason))
    func interrupted() async throws {
        let fault = try #require(CLIProcessTests.faultServer)
        let directory = try Self.privateTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("big.bin")
        let download = try await CLIProcessTests.run(
            executable: "nal-cli", ["request", "GET", "\(fault)/source/50000000?pace_ms=100", "-o", output.path],
            interrupt: (SIGINT, .milliseconds(800)))
        #expect(download.status == 130, "\(download.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "a partial file was left")

        let stdin = try await CLIProcessTests.run(
            executable: "nal-cli", ["request", "PUT", "\(fault)/sink", "--data", "@-"],
            standardInput: Data(count: 100_000), environment: ["TMPDIR": directory.path], keepInputOpen: true,
            interrupt: (SIGTERM, .milliseconds(500)))
        #expect(stdin.status == 143, "\(stdin.standardError)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "the copy of stdin was left")
    }

    @Test(
        "-o - and -o /dev/stdout write the body to standard output as it is",
        .enabled(if: CLIProcessTests.faultServer != nil, CLIProcessTests.faultServerSkipReason))
    func outputToStandardOutput() async throws {
        let fault = try #require(CLIProcessTests.faultServer)
        for output in ["-", "/dev/stdout"] {
            let result = try await CLIProcessTests.run("request", "GET", "\(fault)/fast", "-o", output)
            #expect(result.status == 0, "\(output): \(result.standardError)")
            #expect(result.standardOutput == "fast", "\(output)")
        }
    }

    @Test(
        "a 250-byte -o name downloads: the partial file's name is shortened, not the destination's",
        .enabled(if: CLIProcessTests.faultServer != nil, CLIProcessTests.faultServerSkipReason))
    func longOutputName() async throws {
        let fault = try #require(CLIProcessTests.faultServer)
        let directory = try Self.privateTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent(String(repeating: "o", count: 246) + ".bin")
        let result = try await CLIProcessTests.run("request", "GET", "\(fault)/source/1000", "-o", output.path)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try Data(contentsOf: output).count == 1000)
    }

    @Test("--max-time and --timeout take decimal seconds only: hex, exponents, inf and nan are usage errors")
    func decimalSeconds() async throws {
        for text in ["0x10", "1e3", "inf", "nan", ".5", "5.", "-1", "0", "1.2.3", "١"] {
            let result = try await CLIProcessTests.run("request", "GET", "http://127.0.0.1:9/", "--max-time", text)
            #expect(result.status == 64, "--max-time \(text): \(result.standardError)")
            #expect(result.standardError.contains("decimal number of seconds"), "--max-time \(text)")
        }
        let ok = try await CLIProcessTests.run("request", "GET", "http://127.0.0.1:9/", "--timeout", "0.5", "--curl")
        #expect(ok.status == 0, "\(ok.standardError)")
    }

    @Test("--data @file of a FIFO or device is refused at once with a file error, not read forever")
    func specialDataFiles() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nal-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("pipe").path
        #expect(mkfifo(fifo, 0o600) == 0)
        for file in [fifo, "/dev/zero"] {
            let result = try await CLIProcessTests.run(
                "request", "POST", "http://127.0.0.1:9/", "--data", "@\(file)", "--max-time", "5")
            #expect(result.status == 1, "\(file): \(result.standardError)")
            #expect(result.standardError.contains("is not a regular file"), "\(file)")
        }
    }

    @Test(
        "stubs lint and import-har name a FIFO, a device and a link to one as what they are, not a permission problem")
    func specialFixtureFiles() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nal-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("pipe.har").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let zero = directory.appendingPathComponent("zero.har").path
        try FileManager.default.createSymbolicLink(atPath: zero, withDestinationPath: "/dev/zero")
        let out = directory.appendingPathComponent("out").path
        for (file, kind) in [(fifo, "is a FIFO (named pipe)"), (zero, "is a character device")] {
            for arguments in [
                ["stubs", "lint", file], ["stubs", "import-har", file, out], ["stubs", "lint", directory.path],
            ] {
                let result = try await CLIProcessTests.run(executable: "nal-cli", arguments)
                #expect(result.status != 0, "\(arguments): \(result.standardError)")
                let output = result.standardOutput + result.standardError
                #expect(output.contains("\(file): \(kind), not a regular file"), "\(arguments): \(output)")
                #expect(!output.lowercased().contains("permission"), "\(arguments): \(output)")
            }
        }
        // A file past the 256 MiB a fixture may hold (sparse: it takes no disk) is refused before it is read.
        let huge = directory.appendingPathComponent("huge.har").path
        #expect(FileManager.default.createFile(atPath: huge, contents: nil) && truncate(huge, 257 << 20) == 0)
        for arguments in [["stubs", "lint", huge], ["stubs", "import-har", huge, out]] {
            let result = try await CLIProcessTests.run(executable: "nal-cli", arguments)
            #expect(result.status != 0, "\(arguments): \(result.standardError)")
            let output = result.standardOutput + result.standardError
            #expect(output.contains("\(huge): holds 269484032 bytes or more, past the 256 MiB"), "\(output)")
        }
    }

    @Test("import-har refuses a HAR whose method would forge .tail lines; skipped failed entries are listed")
    func importHARValidation() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nal-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let forged = directory.appendingPathComponent("forged.har")
        try Data(
            #"{"log":{"entries":[{"request":{"method":"GET\n.*\n200\n\nforged","url":"https://a.example.com/x"},"response":{"status":200,"content":{"text":"{{ nope }}"}}}]}}"#
                .utf8
        ).write(to: forged)
        let refused = try await CLIProcessTests.run(
            "stubs", "import-har", forged.path, directory.appendingPathComponent("out").path)
        #expect(refused.status == 1 && refused.standardError.contains("request.method"))

        let templated = directory.appendingPathComponent("templated.har")
        try Data(
            #"{"log":{"entries":[{"request":{"method":"GET","url":"https://a.example.com/page"},"response":{"status":200,"headers":[{"name":"Content-Type","value":"text/html"}],"content":{"text":"<p>{{ name }}</p>"}}},{"request":{"method":"GET","url":"https://a.example.com/gone"},"response":{"status":0}}]}}"#
                .utf8
        ).write(to: templated)
        let output = directory.appendingPathComponent("tails")
        let imported = try await CLIProcessTests.run("stubs", "import-har", templated.path, output.path)
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(imported.standardOutput.contains("skipped entry 1 (GET https://a.example.com/gone): status 0"))
        let lint = try await CLIProcessTests.run("stubs", "lint", output.path)
        #expect(lint.status == 0, "a body with {{ must load back: \(lint.standardOutput)")
        let match = try await CLIProcessTests.run("stubs", "match", output.path, "GET", "https://a.example.com/page")
        #expect(match.status == 0)
    }
}
