import Foundation

enum BenchMain {
    /// Every scenario and reference; a module adds its own list here.
    static let allScenarios =
        Benchmark.prepareScenarios + Benchmark.logScenarios + Benchmark.clientScenarios + Benchmark.middlewareScenarios
        + Benchmark.stubScenarios + Benchmark.fixtureScenarios + Benchmark.streamScenarios + Benchmark.cacheScenarios
        + Benchmark.receiveScenarios

    /// Exit statuses of a run with `--compare` or `--save-baseline`, the contract a user's CI relies on.
    enum Status {
        static let regressed: Int32 = 1
        static let usageError: Int32 = 2
        /// A scenario threw or a result could not be written: neither a regression nor a usage error.
        static let failed: Int32 = 3
    }

    static func run(_ options: BenchOptions) async -> Int32 {
        if options.list {
            print(scenarioList())
            return 0
        }
        BenchLogging.setUp()
        let baselineMode = options.saveBaseline != nil || options.compare != nil
        let usageError: Int32 = baselineMode ? Status.usageError : 64
        let groups: [[Benchmark]]
        let regex: Regex<AnyRegexOutput>?
        do {
            regex = try options.filter.map { try Regex($0) }
            groups = select(allScenarios, filter: regex)
        } catch {
            FileHandle.standardError.write(Data("Error: invalid --filter regex: \(error)\n".utf8))
            return usageError
        }
        if groups.isEmpty, baselineMode {
            // Comparing nothing would pass, and saving nothing would make an empty baseline.
            FileHandle.standardError.write(Data("Error: --filter \(options.filter ?? "") matches no scenario\n".utf8))
            return usageError
        }
        // Found before measuring, as usage errors: a missing or broken baseline, a baseline that cannot be written.
        var baseline: Baseline?
        do {
            if let name = options.compare { baseline = try Baseline.load(name) }
            if let name = options.saveBaseline { try Baseline.checkWritable(name) }
        } catch {
            FileHandle.standardError.write(Data("Error: \(error.description)\n".utf8))
            return usageError
        }
        var results: [Measurement] = []
        for group in groups {
            do {
                results += try await Runner.measure(group, limits: options.quick ? .quick : .full)
            } catch {
                FileHandle.standardError.write(Data("Error: scenario \(group[0].name) threw: \(error)\n".utf8))
                return baselineMode ? Status.failed : 1
            }
        }
        if baseline == nil || options.format == .table {
            switch options.format {
            case .table: print(Report.table(results))
            case .json: print(Report.json(results))
            case .markdown: print(Report.markdown(results))
            }
        }
        if let name = options.saveBaseline {
            do {
                try Baseline(results, benchmarks: allScenarios, quick: options.quick, filter: options.filter)
                    .save(as: name)
                FileHandle.standardError.write(Data("baseline saved to \(Baseline.path(for: name))\n".utf8))
            } catch {
                FileHandle.standardError.write(Data("Error: \(error.description)\n".utf8))
                return Status.failed
            }
        }
        if options.writeThresholds {
            return Thresholds.write(results, directory: options.thresholdsDirectory)
        }
        var regressed = false
        if let baseline, let name = options.compare {
            var metric = options.metric
            if metric == .all, baseline.machine != Baseline.machineDescription {
                // Times from another machine compare nothing; allocations still do.
                FileHandle.standardError.write(
                    Data(
                        "note: the baseline was saved on '\(baseline.machine)', this is '\(Baseline.machineDescription)'; comparing allocations only\n"
                            .utf8))
                metric = .allocations
            }
            let comparison = BaselineComparison(
                baseline: baseline, results: results, benchmarks: allScenarios, metric: metric,
                isSelected: { name in regex.map { name.contains($0) } ?? true })
            if options.format == .table { print("") }
            print(
                ComparisonReport.render(
                    comparison, baseline: baseline, name: name, format: options.format, strict: options.strict))
            regressed = !comparison.failures(strict: options.strict).isEmpty
        }
        if options.check {
            let gate = Thresholds.check(
                results, known: Set(allScenarios.map(\.name)), directory: options.thresholdsDirectory)
            // With --compare, a scenario past its threshold is one more regression (1), and thresholds that cannot be
            // read a usage error (2); alone, --check keeps its own 2 and 1.
            if gate != 0 { return baselineMode ? (gate == 2 ? Status.regressed : Status.usageError) : gate }
        }
        return regressed ? Status.regressed : 0
    }

    /// Every NAL scenario with what it measures, and the references it is compared with.
    static func scenarioList() -> String {
        allScenarios.filter { !$0.isReference }.map { scenario in
            let references =
                scenario.references.isEmpty ? "" : "\n    compared with: " + scenario.references.joined(separator: ", ")
            return "\(scenario.name)\n    \(scenario.description)" + references
        }.joined(separator: "\n")
    }

    /// The NAL scenarios matching the filter, each followed by the references it is compared with.
    static func select(_ scenarios: [Benchmark], filter regex: Regex<AnyRegexOutput>?) -> [[Benchmark]] {
        let byName = Dictionary(scenarios.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        return scenarios.filter { scenario in
            !scenario.isReference && (regex.map { scenario.name.contains($0) } ?? true)
        }.map { scenario in [scenario] + scenario.references.compactMap { byName[$0] } }
    }
}
