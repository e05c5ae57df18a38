import Foundation

enum BenchMain {
    /// Every scenario; a module adds its own list here.
    static let allScenarios = Benchmark.prepareScenarios + Benchmark.logScenarios + Benchmark.clientScenarios

    static func run(_ options: BenchOptions) async -> Int32 {
        BenchLogging.setUp()
        let selected: [Benchmark]
        do {
            selected = try select(allScenarios, filter: options.filter)
        } catch {
            FileHandle.standardError.write(Data("Error: invalid --filter regex: \(error)\n".utf8))
            return 64
        }
        var results: [Measurement] = []
        for benchmark in selected {
            do {
                results.append(try await Runner.measure(benchmark, limits: options.quick ? .quick : .full))
            } catch {
                FileHandle.standardError.write(Data("Error: scenario \(benchmark.name) threw: \(error)\n".utf8))
                return 1
            }
        }
        let byName = Dictionary(results.map { ($0.name, $0.p50) }, uniquingKeysWith: { first, _ in first })
        for index in results.indices {
            if let baseline = results[index].baseline, let baselineP50 = byName[baseline], baselineP50 > 0 {
                results[index].ratio = results[index].p50 / baselineP50
            }
        }
        switch options.format {
        case .table: print(Report.table(results))
        case .json: print(Report.json(results))
        }
        guard options.check else { return 0 }
        return Thresholds.check(results, directory: options.thresholdsDirectory)
    }

    /// Scenarios matching the filter, plus the baselines they are compared with.
    static func select(_ scenarios: [Benchmark], filter: String?) throws -> [Benchmark] {
        guard let filter else { return scenarios }
        let regex = try Regex(filter)
        let matched = scenarios.filter { $0.name.contains(regex) }
        let wanted = Set(matched.map(\.name) + matched.compactMap(\.baseline))
        return scenarios.filter { wanted.contains($0.name) }
    }
}
