import Foundation

/// `Benchmarks/Thresholds/*.json` map every NAL scenario to the most allocations per op it may make.
///
/// The rule for a threshold: the measured count plus 10 % or plus 2, whichever is more, rounded up; a scenario that
/// measures 0 keeps 0, because allocating nothing is the promise it checks. `--write-thresholds` applies the rule.
/// `--check` fails when a scenario allocates more than its threshold, when a NAL scenario has no threshold, and
/// when a threshold names a scenario that does not exist (one that was renamed or removed).
///
/// A scenario that runs inside URLSession (`gatedAboveReference`) is gated on what it allocates above its reference,
/// measured in the same run: URLSession's own count differs between machines and runs, NAL's share does not.
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

    /// The threshold the rule gives for a measured count.
    static func withHeadroom(_ measured: Double) -> Double {
        measured == 0 ? 0 : max(measured + 2, measured * 1.1).rounded(.up)
    }

    /// 0 when every measured NAL scenario has a threshold and is within it and no threshold is stale; 2 otherwise
    /// (1 if the thresholds cannot be read).
    static func check(_ results: [Measurement], known: Set<String>, directory: String) -> Int32 {
        let limits: [String: Double]
        do {
            limits = try load(from: directory)
        } catch {
            FileHandle.standardError.write(Data("Error: cannot read thresholds in \(directory): \(error)\n".utf8))
            return 1
        }
        var failed = false
        for name in limits.keys.sorted() where !known.contains(name) {
            failed = true
            print("check: FAIL \(name): threshold for a scenario that does not exist (renamed or removed?)")
        }
        for result in results where !result.isReference {
            guard let limit = limits[result.name] else {
                failed = true
                print("check: FAIL \(result.name): no threshold in \(directory); run --write-thresholds")
                continue
            }
            guard let measured = gatedCount(result) else {
                print("check: \(result.name): allocations not countable on this platform, skipped")
                continue
            }
            let what = result.mallocsAboveReference == nil ? "mallocs/op" : "mallocs/op above its reference"
            if measured > limit {
                failed = true
                print(
                    "check: FAIL \(result.name): \(Report.format(measured)) \(what) > threshold \(Report.format(limit))"
                )
            } else {
                print("check: ok   \(result.name): \(Report.format(measured)) \(what) <= \(Report.format(limit))")
            }
        }
        return failed ? 2 : 0
    }

    /// The count a scenario's threshold bounds.
    static func gatedCount(_ result: Measurement) -> Double? {
        result.mallocsAboveReference ?? result.mallocsPerOp
    }

    /// Writes thresholds by the rule, one file per name prefix (`prepare.json` for `prepare.*`).
    static func write(_ results: [Measurement], directory: String) -> Int32 {
        var files: [String: [String: Double]] = [:]
        for result in results where !result.isReference {
            guard let measured = gatedCount(result) else {
                FileHandle.standardError.write(Data("Error: allocations are not countable in this build\n".utf8))
                return 1
            }
            let prefix = String(result.name.prefix { $0 != "." })
            files[prefix, default: [:]][result.name] = withHeadroom(measured)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        for (prefix, limits) in files {
            let url = URL(fileURLWithPath: directory).appendingPathComponent(prefix + ".json")
            var merged = (try? JSONDecoder().decode([String: Double].self, from: Data(contentsOf: url))) ?? [:]
            merged.merge(limits) { _, new in new }
            do {
                try (encoder.encode(merged) + Data("\n".utf8)).write(to: url, options: .atomic)
            } catch {
                FileHandle.standardError.write(Data("Error: cannot write \(url.path): \(error)\n".utf8))
                return 1
            }
            print("wrote \(url.path)")
        }
        return 0
    }
}
