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

    /// Executables sit next to the test bundle in the build products folder; `NAL_CLI_PATH` overrides nal-cli's.
    static func executableURL(_ name: String = "nal-cli") throws -> URL {
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
    static func run(executable: String, _ arguments: [String]) async throws -> Result {
        let process = Process()
        process.executableURL = try executableURL(executable)
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        async let outputData = readToEnd(output)
        async let errorData = readToEnd(error)
        let (standardOutput, standardError) = await (outputData, errorData)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                process.waitUntilExit()
                continuation.resume()
            }
        }
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

    @Test("demo prints prepared requests and their cURL form, with secrets redacted")
    func demo() async throws {
        let result = try await Self.run("demo")
        #expect(result.status == 0)
        #expect(result.standardError.isEmpty)
        let output = result.standardOutput
        #expect(
            output.contains(
                "GET https://api.example.com/v1/search?filter%5Blang%5D=swift&filter%5Bmin%5D=10&order=desc&page=2"
                    + "&per_page=50&q=swift%20nio&sort=stars&tags%5B%5D=server&tags%5B%5D=linux"))
        #expect(output.contains("GET https://api.example.com/v1/users/octo%2Fcat%3F"))
        #expect(output.contains("curl -X POST https://api.example.com/v1/repos/swiftlang/swift/issues"))
        #expect(output.contains("-H 'Authorization: Bearer <redacted>'"))
        #expect(output.contains("--data-raw 'password=<redacted>&user=ada'"))
        #expect(!output.contains("ghp_demoSecretToken"))
        #expect(!output.contains("analytical"))
        #expect(!output.contains("demo-session-id"))
    }

    @Test("JSON bodies are the same bytes in every process: keys sorted, whatever the process's hash seed")
    func deterministicBodiesAcrossProcesses() async throws {
        var outputs: Set<String> = []
        for _ in 0..<4 { outputs.insert(try await Self.run("demo").standardOutput) }
        #expect(outputs.count == 1, "the demo printed \(outputs.count) different outputs in 4 processes")
        let output = try #require(outputs.first)
        #expect(
            output.contains(
                #"--data-raw '{"assignees":["ada","grace"],"body":"Steps to reproduce are below.","draft":false,"#
                    + #""labels":["bug","linux"],"milestone":7,"title":"Crash in URLSession on Linux"}'"#))
        #expect(
            output.contains(
                #"--data-raw '{"beta":true,"language":"en","notifications":{"digest":"weekly","email":true,"#
                    + #""push":false},"theme":"dark","timezone":"UTC","token":"<redacted>"}'"#))
        #expect(!output.contains("demo-secret-token"))
    }

    @Test("help goes to stdout with exit 0", arguments: ["--help", "-h", "help"])
    func help(flag: String) async throws {
        let result = try await Self.run(flag)
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("USAGE: nal-cli <subcommand>"))
        #expect(result.standardOutput.contains("demo"))
        #expect(result.standardError.isEmpty)
    }

    @Test("usage errors go to stderr with exit 64")
    func usageError() async throws {
        let unknown = try await Self.run("frobnicate")
        #expect(unknown.status == 64)
        #expect(unknown.standardOutput.isEmpty)
        #expect(unknown.standardError.hasPrefix("Error: unknown subcommand 'frobnicate'\nUSAGE: nal-cli <subcommand>"))

        let extra = try await Self.run("demo", "--bogus")
        #expect(extra.status == 64)
        #expect(extra.standardError.hasPrefix("Error: unexpected argument '--bogus' for 'demo'"))
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
