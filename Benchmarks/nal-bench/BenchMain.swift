import Foundation

enum BenchMain {
    /// Every scenario and reference; a module adds its own list here.
    static let allScenarios =
        Benchmark.prepareScenarios + Benchmark.logScenarios + Benchmark.clientScenarios + Benchmark.middlewareScenarios
        + Benchmark.stubScenarios + Benchmark.fixtureScenarios + Benchmark.streamScenarios

    static func run(_ options: BenchOptions) async -> Int32 {
        BenchLogging.setUp()
        let groups: [[Benchmark]]
        do {
            groups = try select(allScenarios, filter: options.filter)
        } catch {
            FileHandle.standardError.write(Data("Error: invalid --filter regex: \(error)\n".utf8))
            return 64
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
        switch options.format {
        case .table: print(Report.table(results))
        case .json: print(Report.json(results))
        }
        if options.writeThresholds {
            return Thresholds.write(results, directory: options.thresholdsDirectory)
        }
        guard options.check else { return 0 }
        return Thresholds.check(
            results, known: Set(allScenarios.map(\.name)), directory: options.thresholdsDirectory)
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
