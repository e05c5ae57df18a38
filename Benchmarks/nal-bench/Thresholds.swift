import Foundation

/// `Benchmarks/Thresholds/*.json` map scenario names to the most allocations per op they may make.
enum Thresholds {
    static func load(from directory: String) throws -> [String: Double] {
        var limits: [String: Double] = [:]
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }
        for file in files.sorted() {
            let data = try Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent(file))
            let decoded = try JSONDecoder().decode([String: Double].self, from: data)
            limits.merge(decoded) { _, new in new }
        }
        return limits
    }

    /// 0 when every measured scenario with a threshold is within it, 2 otherwise (1 if thresholds are unreadable).
    static func check(_ results: [Measurement], directory: String) -> Int32 {
        let limits: [String: Double]
        do {
            limits = try load(from: directory)
        } catch {
            FileHandle.standardError.write(Data("Error: cannot read thresholds in \(directory): \(error)\n".utf8))
            return 1
        }
        var failed = false
        for result in results {
            guard let limit = limits[result.name] else { continue }
            guard let measured = result.mallocsPerOp else {
                print("check: \(result.name): allocations not countable on this platform, skipped")
                continue
            }
            if measured > limit {
                failed = true
                print(
                    "check: FAIL \(result.name): \(Report.format(measured)) mallocs/op > threshold \(Report.format(limit))"
                )
            } else {
                print("check: ok   \(result.name): \(Report.format(measured)) mallocs/op <= \(Report.format(limit))")
            }
        }
        return failed ? 2 : 0
    }
}
