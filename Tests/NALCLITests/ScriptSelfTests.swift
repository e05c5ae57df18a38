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
}
