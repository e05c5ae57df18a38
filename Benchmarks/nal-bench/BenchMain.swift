import Foundation

enum BenchMain {
    /// Every scenario and reference; a module adds its own list here.
    static let allScenarios =
        Benchmark.prepareScenarios + Benchmark.logScenarios + Benchmark.clientScenarios + Benchmark.middlewareScenarios
        + Benchmark.stubScenarios + Benchmark.fixtureScenarios + Benchmark.streamScenarios

    static func run(_ options: BenchOptions) async -> Int32 {
        if options.list {
            print(scenarioList())
            return 0
        }
        BenchLogging.setUp()
        let usageError: Int32 = options.saveBaseline != nil || options.compare != nil ? 2 : 64
        let groups: [[Benchmark]]
        let regex: Regex<AnyRegexOutput>?
        do {
            groups = try select(allScenarios, filter: options.filter)
            regex = try options.filter.map { try Regex($0) }
        } catch {
            FileHandle.standardError.write(Data("Error: invalid --filter regex: \(error)\n".utf8))
            return usageError
        }
        // Read before measuring: a missing or broken baseline is a usage error, found at once.
        var baseline: Baseline?
        if let name = options.compare {
            do {
                baseline = try Baseline.load(name)
            } catch {
                FileHandle.standardError.write(Data("Error: \(error.description)\n".utf8))
                return usageError
            }
        }
        var results: [Measurement] = []
        for group in groups {
            do {
                results += try await Runner.measure(group, limits: options.quick ? .quick : .full)
            } catch {
                FileHandle.standardError.write(Data("Error: scenario \(group[0].name) threw: \(error)\n".utf8))
                return 1
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
                try Baseline(results, benchmarks: allScenarios, quick: options.quick).save(as: name)
                FileHandle.standardError.write(Data("baseline saved to \(Baseline.path(for: name))\n".utf8))
            } catch {
                FileHandle.standardError.write(Data("Error: \(error.description)\n".utf8))
                return usageError
            }
        }
        if options.writeThresholds {
            return Thresholds.write(results, directory: options.thresholdsDirectory)
        }
        var status: Int32 = 0
        if let baseline, let name = options.compare {
            let comparison = BaselineComparison(
                baseline: baseline, results: results,
                known: Set(allScenarios.filter { !$0.isReference }.map(\.name)), metric: options.metric,
                isSelected: { name in regex.map { name.contains($0) } ?? true })
            if options.format == .table { print("") }
            print(ComparisonReport.render(comparison, baseline: baseline, name: name, format: options.format))
            if !comparison.regressions.isEmpty { status = 1 }
        }
        if options.check {
            let gate = Thresholds.check(
                results, known: Set(allScenarios.map(\.name)), directory: options.thresholdsDirectory)
            if gate != 0 { return gate }
        }
        return status
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
    static func select(_ scenarios: [Benchmark], filter: String?) throws -> [[Benchmark]] {
        let regex = try filter.map { try Regex($0) }
        let byName = Dictionary(scenarios.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        return scenarios.filter { scenario in
            !scenario.isReference && (regex.map { scenario.name.contains($0) } ?? true)
        }.map { scenario in [scenario] + scenario.references.compactMap { byName[$0] } }
    }
}
