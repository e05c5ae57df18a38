import Foundation

/// A comparison with a baseline as text: a table for a terminal, Markdown for a pull request, JSON for machines.
enum ComparisonReport {
    static func render(
        _ comparison: BaselineComparison, baseline: Baseline, name: String, format: BenchOptions.Format,
        strict: Bool = false
    ) -> String {
        switch format {
        case .json: return json(comparison, baseline: baseline, name: name, strict: strict)
        case .markdown: return markdown(comparison, baseline: baseline, name: name, strict: strict)
        case .table: return table(comparison, baseline: baseline, name: name, strict: strict)
        }
    }

    static func cells(_ row: BaselineComparison.Row) -> [String] {
        [
            printable(row.scenario), row.metric, value(row.base, row.metric), value(row.head, row.metric), change(row),
            row.verdict.mark,
        ]
    }

    /// A name from a baseline file as one table cell: control characters shown as "?", a Markdown table's "|"
    /// escaped, so that an edited file cannot break the report or a terminal.
    static func printable(_ text: String) -> String {
        Baseline.printable(text).replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "`", with: "'")
    }

    static let header = ["scenario", "metric", "base", "head", "change", "verdict"]

    static func summary(_ comparison: BaselineComparison, strict: Bool) -> String {
        let regressions = comparison.regressions.count
        var text =
            regressions == 0
            ? "No regression."
            : "\(regressions) regression\(regressions == 1 ? "" : "s"): "
                + comparison.regressions.map { "\($0.scenario) (\($0.metric))" }.joined(separator: ", ")
        let outdated = comparison.failures(strict: strict).filter { $0.verdict != .regressed }
        if !outdated.isEmpty {
            text +=
                "\nThe baseline is out of date (--strict): "
                + outdated.map { "\($0.scenario) (\($0.verdict.mark))" }.joined(separator: ", ")
                + ". Save it again on purpose, in the change that moved it."
        }
        return text
    }

    /// What each regressed scenario measures, so that a reader of the report knows what got worse.
    static func regressedDescriptions(_ comparison: BaselineComparison) -> [String] {
        var seen: Set<String> = []
        return comparison.regressions.compactMap { row in
            guard !row.description.isEmpty, seen.insert(row.scenario).inserted else { return nil }
            return "\(row.scenario): \(row.description)"
        }
    }

    static func table(_ comparison: BaselineComparison, baseline: Baseline, name: String, strict: Bool) -> String {
        let title = "compared with \(Baseline.path(for: name)) (saved \(baseline.created) on \(baseline.machine))"
        let table = TextTable.lines(header: header, rows: comparison.rows.map(cells), leftAligned: [0, 1, 5])
        return ([title] + table + [summary(comparison, strict: strict)] + regressedDescriptions(comparison))
            .joined(separator: "\n")
    }

    static func markdown(_ comparison: BaselineComparison, baseline: Baseline, name: String, strict: Bool) -> String {
        var lines = [
            "Compared with `\(Baseline.path(for: name))` (saved \(baseline.created) on \(baseline.machine)).", "",
            "| " + header.joined(separator: " | ") + " |",
            "|" + header.indices.map { $0 < 2 || $0 == 5 ? "---" : "---:" }.joined(separator: "|") + "|",
        ]
        for row in comparison.rows {
            var cells = cells(row)
            cells[0] = "`\(printable(row.scenario))`"
            if row.verdict == .regressed { cells[5] = "**\(cells[5])**" }
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        lines += ["", summary(comparison, strict: strict)]
        lines += regressedDescriptions(comparison).map { "- \($0)" }
        return lines.joined(separator: "\n")
    }

    static func json(_ comparison: BaselineComparison, baseline: Baseline, name: String, strict: Bool) -> String {
        struct Document: Encodable {
            let baseline: String
            let saved: String
            let regressions: Int
            let failures: Int
            let rows: [BaselineComparison.Row]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let document = Document(
            baseline: Baseline.path(for: name), saved: baseline.created, regressions: comparison.regressions.count,
            failures: comparison.failures(strict: strict).count, rows: comparison.rows)
        guard let data = try? encoder.encode(document) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    static func value(_ value: Double?, _ metric: String) -> String {
        guard let value else { return "" }
        guard metric == "time" else { return Report.format(value, decimals: value == value.rounded() ? 0 : 2) }
        return value >= 10_000 ? String(format: "%.1f µs", value / 1000) : String(format: "%.0f ns", value)
    }

    static func change(_ row: BaselineComparison.Row) -> String {
        guard let change = row.change else { return "" }
        if row.metric == "time" { return String(format: "%+.1f%%", change * 100) }
        return change == 0 ? "0" : String(format: change == change.rounded() ? "%+.0f" : "%+.2f", change)
    }
}
