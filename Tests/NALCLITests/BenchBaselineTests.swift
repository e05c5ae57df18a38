import Foundation
import Testing

/// `nal-bench --save-baseline` and `--compare` as a user's CI runs them: exit 0 when nothing regressed, 1 with a
/// table naming the regression, 2 on usage errors.
@Suite("nal-bench baselines as a process")
struct BenchBaselineTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nal-baselines-\(UUID().uuidString)")

    func bench(_ arguments: [String]) async throws -> CLIProcessTests.Result {
        try await CLIProcessTests.run(executable: "nal-bench", ["--allow-debug", "--quick"] + arguments)
    }

    /// Saves a baseline of the scenarios `filter` selects, and returns its path.
    func saveBaseline(_ filter: String) async throws -> String {
        let path = folder.appendingPathComponent("base.json").path
        let saved = try await bench(["--filter", filter, "--save-baseline", path])
        #expect(saved.status == 0, "\(saved.standardError)")
        #expect(saved.standardError.contains("baseline saved to \(path)"))
        return path
    }

    /// Rewrites the baseline at `path`: `change` gets the scenarios by name.
    func editBaseline(_ path: String, _ change: (inout [String: [String: Any]]) -> Void) throws {
        let url = URL(fileURLWithPath: path)
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var scenarios = try #require(document["scenarios"] as? [String: [String: Any]])
        change(&scenarios)
        document["scenarios"] = scenarios
        try JSONSerialization.data(withJSONObject: document).write(to: url)
    }

    @Test("a run compared with its own baseline passes; one allocation more than the baseline fails and names it")
    func allocations() async throws {
        try #require(BenchProcessTests.mustCountAllocations, "allocations are not countable in this build")
        let path = try await saveBaseline("^log\\.(disabled|enabled)$")
        let arguments = ["--filter", "^log\\.(disabled|enabled)$", "--compare", path, "--metric", "allocations"]
        let same = try await bench(arguments)
        #expect(same.status == 0, "\(same.standardOutput)\n\(same.standardError)")
        #expect(same.standardOutput.contains("No regression."))

        // The baseline counted one allocation fewer than this build makes: as if the build allocated once more.
        try editBaseline(path) { scenarios in
            let counted = scenarios["log.enabled"]?["mallocsPerOp"] as? Double ?? 0
            scenarios["log.enabled"]?["mallocsPerOp"] = counted - 1
        }
        let more = try await bench(arguments)
        #expect(more.status == 1, "\(more.standardOutput)\n\(more.standardError)")
        let row = more.standardOutput.split(separator: "\n").last { $0.hasPrefix("log.enabled ") }
        #expect(row?.contains("▲ regression") == true, "\(more.standardOutput)")
        #expect(more.standardOutput.contains("1 regression: log.enabled (allocations)"))
        #expect(!more.standardOutput.contains("log.disabled (allocations)"))
    }

    @Test(
        "--strict: one allocation more or less in a counted batch of 64 is unchanged (CI counted 22.98 against 23); a tenth per op is an improvement to save"
    )
    func countingNoise() async throws {
        try #require(BenchProcessTests.mustCountAllocations, "allocations are not countable in this build")
        let path = try await saveBaseline("^log\\.enabled$")
        let arguments = [
            "--filter", "^log\\.enabled$", "--compare", path, "--metric", "allocations", "--strict",
        ]
        let counted = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
                as? [String: Any])
        let saved = try #require(
            ((counted["scenarios"] as? [String: Any])?["log.enabled"] as? [String: Any])?["mallocsPerOp"] as? Double)

        for offset in [1.0 / 64, -1.0 / 64] {
            try editBaseline(path) { $0["log.enabled"]?["mallocsPerOp"] = saved + offset }
            let result = try await bench(arguments)
            #expect(result.status == 0, "baseline \(saved + offset): \(result.standardOutput)")
            #expect(result.standardOutput.contains("= unchanged"), "\(result.standardOutput)")
        }
        // The build counts a tenth of an allocation per op fewer than the baseline: saved again, or --strict fails.
        try editBaseline(path) { $0["log.enabled"]?["mallocsPerOp"] = saved + 0.1 }
        let improved = try await bench(arguments)
        #expect(improved.status == 1, "\(improved.standardOutput)")
        #expect(
            improved.standardOutput.contains("The baseline is out of date (--strict): log.enabled (▼ improvement)"),
            "\(improved.standardOutput)")
    }

    @Test("a scenario gated above its reference keeps that count in the baseline, and compares it")
    func aboveReference() async throws {
        try #require(BenchProcessTests.mustCountAllocations, "allocations are not countable in this build")
        let path = try await saveBaseline("^stub\\.urlprotocol$")
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        let entry = ((document as? [String: Any])?["scenarios"] as? [String: Any])?["stub.urlprotocol"]
        #expect((entry as? [String: Any])?["mallocsAboveReference"] is NSNumber, "\(String(describing: entry))")
        let result = try await bench([
            "--filter", "^stub\\.urlprotocol$", "--compare", path, "--metric", "allocations",
        ])
        #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)")
        #expect(result.standardOutput.contains("allocations above reference"), "\(result.standardOutput)")

        // Its stated tolerance is 3: two allocations above the baseline pass, four fail.
        let measured = (entry as? [String: Any])?["mallocsAboveReference"] as? Double ?? 0
        for (below, expected) in [(2.0, Int32(0)), (4.0, Int32(1))] {
            try editBaseline(path) { $0["stub.urlprotocol"]?["mallocsAboveReference"] = measured - below }
            let compared = try await bench([
                "--filter", "^stub\\.urlprotocol$", "--compare", path, "--metric", "allocations",
            ])
            #expect(compared.status == expected, "\(below) below: \(compared.standardOutput)")
        }
        // The tolerance is the build's: a baseline that claims a huge one hides nothing.
        try editBaseline(path) { $0["stub.urlprotocol"]?["allocationTolerance"] = 1e9 }
        let trusted = try await bench([
            "--filter", "^stub\\.urlprotocol$", "--compare", path, "--metric", "allocations",
        ])
        #expect(trusted.status == 1, "\(trusted.standardOutput)")
    }

    @Test("time: a baseline far faster is a regression, one far slower an improvement; markdown names both")
    func time() async throws {
        let path = try await saveBaseline("^prepare\\.plain$")
        try editBaseline(path) { scenarios in
            scenarios["prepare.plain"]?.merge(["median": 1.0, "p25": 1.0, "p75": 1.0, "p90": 1.0]) { $1 }
        }
        // The time rule calls a difference noise when it is within the two runs' own spread: on a loaded machine one
        // run of a few rounds can be that noisy even against 1 ns. Noise passes; a broken rule fails all three.
        var slower = try await bench([
            "--filter", "^prepare\\.plain$", "--compare", path, "--metric", "time", "--format", "markdown",
        ])
        for _ in 0..<2 where slower.status == 0 && slower.standardOutput.contains("≈ within noise") {
            slower = try await bench([
                "--filter", "^prepare\\.plain$", "--compare", path, "--metric", "time", "--format", "markdown",
            ])
        }
        #expect(slower.status == 1, "\(slower.standardOutput)\n\(slower.standardError)")
        #expect(slower.standardOutput.contains("| `prepare.plain` | time | 1 ns |"))
        #expect(slower.standardOutput.contains("**▲ regression**"))
        #expect(!slower.standardOutput.contains("p50 ns"), "markdown comparison output is the table alone")

        try editBaseline(path) { scenarios in
            scenarios["prepare.plain"]?.merge(["median": 1e9, "p25": 1e9, "p75": 1e9, "p90": 1e9]) { $1 }
        }
        let faster = try await bench([
            "--filter", "^prepare\\.plain$", "--compare", path, "--metric", "time", "--format", "json",
        ])
        #expect(faster.status == 0, "\(faster.standardOutput)\n\(faster.standardError)")
        let decoded = try JSONSerialization.jsonObject(with: Data(faster.standardOutput.utf8)) as? [String: Any]
        let rows = decoded?["rows"] as? [[String: Any]]
        #expect(rows?.first?["verdict"] as? String == "improved")
        #expect(decoded?["regressions"] as? Int == 0)
        // --strict keeps a checked-in baseline current for allocations; a faster time is no reason to fail.
        let strict = try await bench([
            "--filter", "^prepare\\.plain$", "--compare", path, "--metric", "time", "--strict",
        ])
        #expect(strict.status == 0, "\(strict.standardOutput)")
        #expect(strict.standardOutput.contains("▼ improvement"), "\(strict.standardOutput)")

        // Ten times faster, edited with a spread of ten medians: the file's spread
        // counts only as far as this run's own, so the difference is a regression, not noise (it was "+891.6 %
        // ≈ within noise" with an exit of 0).
        let measured = try await bench(["--filter", "^prepare\\.plain$", "--save-baseline", path])
        #expect(measured.status == 0)
        try editBaseline(path) { scenarios in
            let median = (scenarios["prepare.plain"]?["median"] as? Double ?? 0) / 10
            scenarios["prepare.plain"]?.merge(["median": median, "p25": 0.0, "p75": median * 10, "p90": median * 10]) {
                $1
            }
        }
        // This run's own quartiles are the noise here, and a loaded machine can spread them as wide as the median:
        // up to five runs may try (in CI's loaded command-line pass, three were not enough).
        var edited = try await bench(["--filter", "^prepare\\.plain$", "--compare", path, "--metric", "time"])
        for _ in 0..<4 where edited.status == 0 {
            edited = try await bench(["--filter", "^prepare\\.plain$", "--compare", path, "--metric", "time"])
        }
        #expect(edited.status == 1, "\(edited.standardOutput)")
        #expect(edited.standardOutput.contains("▲ regression"), "\(edited.standardOutput)")

        // Quartiles out of order, or a spread past a thousand medians, are no run's: the file is refused.
        for times in [
            ["median": 10.0, "p25": 20.0, "p75": 30.0, "p90": 40.0],
            ["median": 10.0, "p25": 0, "p75": 1e12, "p90": 1e12],
        ] {
            try editBaseline(path) { scenarios in scenarios["prepare.plain"]?.merge(times) { $1 } }
            let refused = try await bench(["--filter", "^prepare\\.plain$", "--compare", path, "--metric", "time"])
            #expect(refused.status == 2, "\(times): \(refused.standardOutput)")
            #expect(refused.standardError.contains("is not a usable baseline"), "\(refused.standardError)")
        }

        // A baseline from a single round has no spread worth the name: no time verdict either way.
        try editBaseline(path) { scenarios in
            scenarios["prepare.plain"]?.merge(["median": 1.0, "p25": 1.0, "p75": 1.0, "rounds": 1]) { $1 }
        }
        let oneRound = try await bench(["--filter", "^prepare\\.plain$", "--compare", path, "--metric", "time"])
        #expect(oneRound.status == 0)
        #expect(oneRound.standardOutput.contains("n/a: too few rounds"), "\(oneRound.standardOutput)")
    }

    @Test("a scenario only in the baseline is reported removed, one only in the run new; neither is a regression")
    func removedAndNew() async throws {
        let path = try await saveBaseline("^log\\.disabled$")
        try editBaseline(path) { scenarios in
            scenarios["log.renamedAway"] = scenarios["log.disabled"]
            scenarios["log.disabled"] = nil
        }
        let result = try await bench([
            "--filter", "^log\\.(disabled|renamedAway)$", "--compare", path, "--metric", "allocations",
        ])
        #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains { $0.hasPrefix("log.disabled ") && $0.hasSuffix("new") })
        #expect(lines.contains { $0.hasPrefix("log.renamedAway ") && $0.contains("removed") })

        // A checked-in baseline must be kept current: --strict fails on both.
        let strict = try await bench([
            "--filter", "^log\\.(disabled|renamedAway)$", "--compare", path, "--metric", "allocations", "--strict",
        ])
        #expect(strict.status == 1, "\(strict.standardOutput)")
        #expect(strict.standardOutput.contains("The baseline is out of date (--strict): log.disabled (new)"))
    }

    @Test("with --check, a scenario past its threshold exits 1 like a regression; --compare=PATH works")
    func checkWithCompare() async throws {
        let path = try await saveBaseline("^log\\.disabled$")
        let thresholds = folder.appendingPathComponent("thresholds")
        try FileManager.default.createDirectory(at: thresholds, withIntermediateDirectories: true)
        try Data(#"{"log.disabled": -1}"#.utf8).write(to: thresholds.appendingPathComponent("log.json"))
        let result = try await bench([
            "--filter", "^log\\.disabled$", "--compare=\(path)", "--metric=allocations", "--check",
            "--thresholds", thresholds.path,
        ])
        #expect(result.status == (BenchProcessTests.mustCountAllocations ? 1 : 0), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("No regression."), "the comparison itself found nothing")
    }

    @Test("a baseline saved on another machine compares allocations only, and says so")
    func otherMachine() async throws {
        let path = try await saveBaseline("^prepare\\.plain$")
        let url = URL(fileURLWithPath: path)
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        document["machine"] = "another machine"
        try JSONSerialization.data(withJSONObject: document).write(to: url)
        let result = try await bench(["--filter", "^prepare\\.plain$", "--compare", path])
        #expect(result.status == 0, "\(result.standardOutput)")
        #expect(result.standardError.contains("saved on 'another machine'"))
        let rows = result.standardOutput.split(separator: "\n").filter { $0.hasPrefix("prepare.plain ") }
        #expect(rows.last?.contains("allocations") == true && !rows.contains { $0.contains(" time ") })
    }

    @Test("a scenario's stated allocation tolerance is in its JSON, for bench-ab's verdicts; none is absent")
    func allocationToleranceInJSON() async throws {
        let result = try await bench([
            "--filter", "^(cache\\.hit\\.directory\\.disk|cache\\.hit\\.memory)$", "--format", "json",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let measurements = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]])
        let tolerances = Dictionary(
            measurements.map { ($0["name"] as? String ?? "", $0["allocationTolerance"] as? Double) },
            uniquingKeysWith: { first, _ in first })
        #expect(tolerances["cache.hit.directory.disk"] == 3)
        #expect(tolerances["cache.hit.memory"] == .some(nil))
    }

    @Test("every field a baseline file prints reaches the terminal without its escape sequences")
    func hostileFields() async throws {
        let path = try await saveBaseline("^prepare\\.plain$")
        let url = URL(fileURLWithPath: path)
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let hostile = "evil\u{1B}[2J\u{1B}]0;pwned\u{07}\u{9B}31m\u{202E}"
        document["machine"] = hostile
        document["created"] = hostile
        var scenarios = try #require(document["scenarios"] as? [String: [String: Any]])
        scenarios["prepare.plain"]?["description"] = hostile
        // A median of a nanosecond: a regression, so that the description is printed too.
        scenarios["prepare.plain"]?.merge(["median": 1.0, "p25": 1.0, "p75": 1.0, "p90": 1.0]) { $1 }
        document["scenarios"] = scenarios
        try JSONSerialization.data(withJSONObject: document).write(to: url)
        for format in ["table", "markdown"] {
            let result = try await bench([
                "--filter", "^prepare\\.plain$", "--compare", path, "--metric", "all", "--format", format,
            ])
            let printed = result.standardOutput + result.standardError
            #expect(printed.contains("evil?[2J?]0;pwned??31m?"), "\(format): \(printed)")
            for control in ["\u{1B}", "\u{07}", "\u{9B}", "\u{202E}"] {
                #expect(!printed.contains(control), "\(format) printed \(control.unicodeScalars.first?.value ?? 0)")
            }
        }
        // Saved on this machine, so that time is compared and the regressed scenario's description is printed.
        let saved = try await bench(["--filter", "^prepare\\.plain$", "--save-baseline", path])
        #expect(saved.status == 0)
        var fresh = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var freshScenarios = try #require(fresh["scenarios"] as? [String: [String: Any]])
        freshScenarios["prepare.plain"]?["description"] = hostile
        freshScenarios["prepare.plain"]?.merge(["median": 1.0, "p25": 1.0, "p75": 1.0, "p90": 1.0]) { $1 }
        fresh["scenarios"] = freshScenarios
        try JSONSerialization.data(withJSONObject: fresh).write(to: url)
        var timed = try await bench(["--filter", "^prepare\\.plain$", "--compare", path, "--metric", "time"])
        // A loaded machine can make one run noisy enough to call even 1 ns "within noise": try again then.
        for _ in 0..<2 where timed.status == 0 {
            timed = try await bench(["--filter", "^prepare\\.plain$", "--compare", path, "--metric", "time"])
        }
        let printed = timed.standardOutput + timed.standardError
        #expect(timed.status == 1, "\(printed)")
        #expect(printed.contains("prepare.plain: evil?[2J"), "the description was not printed: \(printed)")
        #expect(!printed.contains("\u{1B}"))
    }

    @Test(
        "memory and soak read their flags alike: a count that is not above 0, a bad URL or an unknown flag exits 64",
        arguments: [
            ["memory", "http://127.0.0.1:9/x", "--calls", "0"], ["memory", "http://127.0.0.1:9/x", "--limit", "-5"],
            ["soak", "http://127.0.0.1:9", "--seconds", "0"], ["soak", "http://127.0.0.1:9", "--concurrency", "x"],
            ["memory", "not a url"], ["soak", "http://127.0.0.1:9", "--calls", "3"],
        ])
    func subcommandFlags(arguments: [String]) async throws {
        let result = try await CLIProcessTests.run(executable: "nal-bench", arguments)
        #expect(result.status == 64, "\(arguments): \(result.standardError)")
        #expect(result.standardError.hasPrefix("Error: "), "\(arguments): \(result.standardError)")
        #expect(result.standardOutput.isEmpty, "\(arguments) measured something")
    }

    @Test("usage errors of the baseline options exit 2, a missing baseline before anything runs")
    func usage() async throws {
        let missing = try await bench(["--compare", folder.appendingPathComponent("none.json").path])
        #expect(missing.status == 2)
        #expect(missing.standardError.contains("no baseline at"))
        #expect(missing.standardOutput.isEmpty, "nothing was measured")

        // A file that exists is never "no baseline": a FIFO (which a read would wait on forever) and a directory are
        // named as what they are.
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let fifo = folder.appendingPathComponent("fifo.json").path
        #expect(mkfifo(fifo, 0o600) == 0)
        for (path, kind) in [(fifo, "is a FIFO (named pipe), not a regular file"), (folder.path, "is a directory")] {
            let special = try await bench(["--compare", path])
            #expect(special.status == 2)
            #expect(special.standardError.contains("the baseline \(path) \(kind)"), "\(special.standardError)")
            #expect(!special.standardError.contains("no baseline at"))
        }
        // A file past the 16 MiB a baseline may hold (sparse: it takes no disk) is refused before it is read.
        let huge = folder.appendingPathComponent("huge.json").path
        #expect(FileManager.default.createFile(atPath: huge, contents: nil) && truncate(huge, 17 << 20) == 0)
        let tooLarge = try await bench(["--compare", huge])
        #expect(tooLarge.status == 2)
        #expect(
            tooLarge.standardError.contains("the baseline \(huge) holds 17825792 bytes or more, past the 16 MiB"),
            "\(tooLarge.standardError)")

        let metric = try await bench(["--compare", "x", "--metric", "speed"])
        #expect(metric.status == 2)
        #expect(metric.standardError.hasPrefix("Error: unknown metric 'speed'"))

        let broken = folder.appendingPathComponent("broken.json")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("{\"version\": 1}".utf8).write(to: broken)
        let unreadable = try await bench(["--compare", broken.path])
        #expect(unreadable.status == 2)
        #expect(unreadable.standardError.contains("is not a nal-bench baseline"))

        let noName = try await bench(["--save-baseline", ""])
        #expect(noName.status == 2)

        try Data("x".utf8).write(to: folder.appendingPathComponent("file"))
        let unwritable = try await bench(["--save-baseline", folder.appendingPathComponent("file/b.json").path])
        #expect(unwritable.status == 2, "\(unwritable.standardError)")
        #expect(unwritable.standardOutput.isEmpty, "refused before measuring")

        let future = folder.appendingPathComponent("future.json")
        let version2 = #"{"version": 2, "created": "", "machine": "", "quick": true, "scenarios": {}}"#
        try Data(version2.utf8).write(to: future)
        let newer = try await bench(["--compare", future.path])
        #expect(newer.status == 2)
        #expect(newer.standardError.contains("is a baseline of format 2"))

        // Refused before anything runs: a filter that selects nothing, a baseline that would overwrite the one
        // compared with, a symbolic link (or device) in place of a file, the `=` spelling of a bad option.
        let path = try await saveBaseline("^log\\.disabled$")
        for arguments in [
            ["--filter", "no-such-scenario", "--compare", path],
            ["--filter", "^log\\.disabled$", "--compare", path, "--save-baseline", path],
            ["--compare=\(path)", "--metric", "bogus"],
            ["--list", "--compare", path],
        ] {
            let refused = try await bench(arguments)
            #expect(refused.status == 2, "\(arguments): \(refused.standardError)")
            #expect(refused.standardOutput.isEmpty, "\(arguments) measured something")
        }
        let link = folder.appendingPathComponent("link.json")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: path)
        let throughLink = try await bench(["--filter", "^log\\.disabled$", "--save-baseline", link.path])
        #expect(throughLink.status == 2)
        #expect(throughLink.standardError.contains("exists and is not a regular file"))

        // A median of 0 would make every time "unchanged", and a subnormal one every ratio infinite: the file is
        // refused, not trusted.
        for median in [0.0, Double.leastNonzeroMagnitude, 0.001] {
            try editBaseline(path) { scenarios in
                scenarios["log.disabled"]?["median"] = median
                scenarios["log.disabled"]?["p25"] = median
            }
            let refused = try await bench(["--filter", "^log\\.disabled$", "--compare", path])
            #expect(refused.status == 2, "median \(median)")
            #expect(refused.standardError.contains("is not a usable baseline"), "median \(median)")
            #expect(refused.standardError.contains("median at least 0.01 ns"), "median \(median)")
        }
    }
}
