import Foundation
import Testing

/// The Python helpers of the repository's scripts check their own logic on made-up inputs; these tests run those
/// checks, so that the mutation harness and CI see a broken verdict or comparison.
@Suite("Script helpers as processes")
struct ScriptSelfTests {
    @Test(
        "each helper passes its self-test",
        arguments: [
            ("bench_ab.py", "bench_ab self-test: ok"),  // the A/B verdicts of scripts/bench-ab.sh
            ("api_dump.py", "api_dump self-test: ok"),  // the public-API pruning and comparison of api-check.sh
        ])
    func selfTest(script: String, success: String) async throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/lib/\(script)").path
        let result = try await CLIProcessTests.run(executable: "/usr/bin/env", ["python3", path, "--self-test"])
        #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)")
        #expect(result.standardOutput.contains(success))
    }

    /// Documented constants are API: a changed value (StreamedBody.defaultHighWater from 1 MiB to 2 MiB) must be
    /// recorded in API/ on purpose, as scripts/api-check.sh checks in CI; this runs the same comparison in the suite.
    @Test(
        "the values of public constants match API/<Module>.constants.txt",
        arguments: ["NALCore", "NALLogging", "NALMiddleware", "NALStubbing"])
    func publicConstantsMatchAPI(module: String) async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let result = try await CLIProcessTests.run(
            executable: "/usr/bin/env",
            [
                "python3", root.appendingPathComponent("scripts/lib/api_dump.py").path, "constants",
                root.appendingPathComponent("Sources/\(module)").path,
            ])
        #expect(result.status == 0, "\(result.standardError)")
        let recorded = try String(
            contentsOf: root.appendingPathComponent("API/\(module).constants.txt"), encoding: .utf8)
        #expect(result.standardOutput == recorded, "run scripts/api-check.sh --update after a deliberate change")
    }

    /// `scripts/fuzz.sh` never fuzzes a target that reaches unsafe pointers without ASan, which alone checks their
    /// bounds in a release build; it refuses before building anything.
    @Test(
        "fuzz.sh refuses to run the unsafe-pointer targets without ASan",
        arguments: ["server-sent-events", "encoders", "all"])
    func fuzzNeedsAddressSanitizer(target: String) async throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/fuzz.sh").path
        let result = try await CLIProcessTests.run(
            executable: "/usr/bin/env", ["NAL_FUZZ_SANITIZER=none", "bash", script, target, "1"])
        #expect(result.status == 64, "\(result.standardOutput)\n\(result.standardError)")
        #expect(result.standardError.contains("only ASan checks"))
        #expect(!result.standardOutput.contains("== build"))
    }

    @Test(
        "stress-suite.sh prints its usage for --help and refuses what is not a count, without running anything",
        arguments: [["--help"], ["-h"], ["abc"], ["0"], ["-3"], ["2", "3"], ["1e3"]])
    func stressSuiteArguments(arguments: [String]) async throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/stress-suite.sh").path
        let result = try await CLIProcessTests.run(executable: "/usr/bin/env", ["bash", script] + arguments)
        let help = arguments.first?.hasPrefix("-h") == true || arguments == ["--help"]
        #expect(result.status == (help ? 0 : 64), "\(arguments): \(result.standardError)")
        #expect((result.standardOutput + result.standardError).contains("scripts/stress-suite.sh [RUNS]"))
        #expect(!result.standardOutput.contains("CPU hogs"), "\(arguments) started the suite")
    }

    @Test(
        "fuzz.sh refuses a NAL_FUZZ_TIMEOUT that is not a whole number of seconds, before building",
        arguments: ["0", "-5", "1.5", "ten"])
    func fuzzTimeoutChecked(value: String) async throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/fuzz.sh").path
        let result = try await CLIProcessTests.run(
            executable: "/usr/bin/env", ["NAL_FUZZ_TIMEOUT=\(value)", "bash", script, "link", "1"])
        #expect(result.status == 64, "\(result.standardOutput)\n\(result.standardError)")
        #expect(result.standardError.contains("NAL_FUZZ_TIMEOUT is a number of seconds"))
        #expect(!result.standardOutput.contains("== build"))
    }
}
