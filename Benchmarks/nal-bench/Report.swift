import Foundation

enum Report {
    /// One row per scenario; its references follow on indented rows, with NAL's time divided by theirs (the
    /// median of per-round ratios) and the difference of the medians.
    static func table(_ results: [Measurement]) -> String {
        let header = [
            "scenario", "p50 ns", "p90 ns", "p99 ns", "mallocs/op", "ops/s", "NAL ÷ this", "NAL − this",
        ]
        var rows: [[String]] = []
        var scenario: Measurement?
        for result in results {
            if !result.isReference { scenario = result }
            let ratio = result.isReference ? scenario?.ratios[result.name] : nil
            rows.append([
                result.isReference ? "  vs " + result.name : result.name,
                format(result.p50), format(result.p90), format(result.p99),
                result.mallocsPerOp.map { format($0) } ?? "n/a",
                format(result.throughputPerSecond, decimals: 0),
                ratio.map {
                    $0 <= 1
                        ? String(format: "%.3f (%.1f× faster)", $0, 1 / $0)
                        : String(format: "%.3f (%.2f× slower)", $0, $0)
                } ?? "",
                result.isReference ? scenario.map { String(format: "%+.0f ns", $0.p50 - result.p50) } ?? "" : "",
            ])
        }
        return TextTable.lines(header: header, rows: rows, leftAligned: [0]).joined(separator: "\n")
    }

    /// The table as Markdown, one row per scenario and reference, for a pull request.
    static func markdown(_ results: [Measurement]) -> String {
        var lines = ["| scenario | p50 ns | p90 ns | mallocs/op | NAL ÷ this |", "|---|---:|---:|---:|---:|"]
        var scenario: Measurement?
        for result in results {
            if !result.isReference { scenario = result }
            let ratio = result.isReference ? scenario?.ratios[result.name].map { String(format: "%.3f", $0) } : nil
            lines.append(
                "| \(result.isReference ? "vs `\(result.name)`" : "`\(result.name)`") | \(format(result.p50)) | "
                    + "\(format(result.p90)) | \(result.mallocsPerOp.map { format($0) } ?? "n/a") | \(ratio ?? "") |")
        }
        return lines.joined(separator: "\n")
    }

    static func json(_ results: [Measurement]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(results) else { return "[]" }
        return String(decoding: data, as: UTF8.self)
    }

    static func format(_ value: Double, decimals: Int = 1) -> String {
        String(format: "%.\(decimals)f", value)
    }
}
