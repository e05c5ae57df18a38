import Foundation

/// A run set against a saved baseline, scenario by scenario: allocations compared exactly (or within the scenario's
/// stated tolerance), time within the scenario's relative tolerance and only when the two medians differ by more
/// than the runs' own spread (the interquartile ranges of their rounds, added; the baseline's counted no wider than
/// this run's). That is conservative on purpose: a
/// narrower allowance, such as box-plot notches, flagged unchanged code in two runs of eight on a shared machine,
/// where one process differs from the next by more than its rounds do. Times are for a quiet machine;
/// `scripts/bench-ab.sh` is the tool for a shared one.
///
/// Tolerances are this build's, stated with each scenario: a baseline file holds none, so an edited one cannot
/// widen them.
struct BaselineComparison {
    /// What `--compare` looks at: `time` only means something on the machine that saved the baseline.
    enum Metric: String {
        case all, allocations, time
    }

    enum Verdict: String, Codable {
        /// Worse than the baseline by more than the tolerance (and, for time, than the noise).
        case regressed
        case improved
        case unchanged
        /// Time beyond the tolerance but within the runs' spread: noise, not a verdict.
        case withinNoise
        /// Measured now, not in the baseline.
        case new
        /// In the baseline, no longer a scenario.
        case removed
        /// Allocations could not be counted in one of the runs (a sanitizer, or not glibc).
        case notCountable
        /// Too few timed rounds in one of the runs for their spread to mean anything.
        case tooFewRounds

        var mark: String {
            switch self {
            case .regressed: "▲ regression"
            case .improved: "▼ improvement"
            case .unchanged: "= unchanged"
            case .withinNoise: "≈ within noise"
            case .new: "new"
            case .removed: "removed"
            case .notCountable: "n/a: not countable"
            case .tooFewRounds: "n/a: too few rounds"
            }
        }
    }

    struct Row: Codable {
        let scenario: String
        /// "allocations", "allocations above reference" or "time".
        let metric: String
        /// Allocations per op, or nanoseconds per op (the median).
        let base: Double?
        let head: Double?
        let verdict: Verdict
        let description: String

        /// The change in the metric's own terms: allocations as a difference, time as a fraction.
        var change: Double? {
            guard let base, let head else { return nil }
            return metric == "time" ? (base > 0 ? head / base - 1 : 0) : head - base
        }
    }

    let rows: [Row]

    /// The fewest timed rounds, in each run, from which a time verdict is given.
    static let minimumRounds = 5

    /// Allocation differences this small are no verdict: two allocations in a counted batch. The counter is
    /// process-wide, and the runtime's own threads can add or save one in a batch; CI once counted 22.98 against a
    /// baseline of 23 (one allocation fewer in one batch of 64). A change to NAL's code moves a count by far more.
    static let countingNoise = 2 / Double(Runner.batch)

    var regressions: [Row] { rows.filter { $0.verdict == .regressed } }

    /// What fails the run: regressions; with `strict` (a checked-in baseline in CI) also whatever says the baseline
    /// is out of date (a new or removed scenario, an improvement not saved, a count that could not be made), so that
    /// a later regression back to the old count cannot pass.
    func failures(strict: Bool) -> [Row] {
        rows.filter { row in
            row.verdict == .regressed
                || strict && [.new, .removed, .notCountable].contains(row.verdict)
                || strict && row.verdict == .improved && row.metric != "time"
        }
    }

    /// - Parameters:
    ///   - benchmarks: every scenario this build has, with its tolerances.
    ///   - isSelected: whether a scenario was chosen to run (`--filter`); baseline entries not chosen are left out.
    init(
        baseline: Baseline, results: [Measurement], benchmarks: [Benchmark], metric: Metric,
        isSelected: (String) -> Bool
    ) {
        let scenarios = Dictionary(
            benchmarks.filter { !$0.isReference }.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let known = Set(scenarios.keys)
        var rows: [Row] = []
        let measured = Dictionary(
            results.filter { !$0.isReference }.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for name in Set(baseline.scenarios.keys).union(measured.keys).sorted() {
            let entry = baseline.scenarios[name]
            guard let head = measured[name] else {
                if let entry, !known.contains(name), isSelected(name) {
                    rows.append(
                        Row(
                            scenario: name, metric: "-", base: nil, head: nil, verdict: .removed,
                            description: entry.description))
                }
                continue
            }
            guard let entry else {
                rows.append(Row(scenario: name, metric: "-", base: nil, head: nil, verdict: .new, description: ""))
                continue
            }
            let scenario = scenarios[name]
            if metric != .time {
                rows.append(Self.allocations(name, entry, head, tolerance: scenario?.allocationTolerance ?? 0))
            }
            if metric != .allocations {
                rows.append(
                    Self.time(name, entry, head, tolerance: scenario?.timeTolerance ?? Benchmark.defaultTimeTolerance))
            }
        }
        self.rows = rows
    }

    private static func allocations(
        _ name: String, _ entry: Baseline.Entry, _ head: Measurement, tolerance: Double
    ) -> Row {
        let aboveReference = entry.mallocsAboveReference != nil || head.mallocsAboveReference != nil
        let base = aboveReference ? entry.mallocsAboveReference : entry.mallocsPerOp
        let now = aboveReference ? head.mallocsAboveReference : head.mallocsPerOp
        let metric = aboveReference ? "allocations above reference" : "allocations"
        guard let base, let now else {
            return Row(
                scenario: name, metric: metric, base: base, head: now, verdict: .notCountable,
                description: entry.description)
        }
        let allowance = tolerance + countingNoise
        let verdict: Verdict =
            now > base + allowance ? .regressed : now < base - allowance ? .improved : .unchanged
        return Row(
            scenario: name, metric: metric, base: base, head: now, verdict: verdict, description: entry.description)
    }

    private static func time(_ name: String, _ entry: Baseline.Entry, _ head: Measurement, tolerance: Double) -> Row {
        let difference = head.p50 - entry.median
        let relative = entry.median > 0 ? difference / entry.median : 0
        // Noise is the two halves of the runs' middle spreads that face each other: a change is a verdict once the
        // quartile ranges part. The file's half counts only as far as this run's same half shows (a file can say
        // anything), and a run whose spread is wider than its median still parts from a baseline far below it.
        let headBelow = max(0, head.p50 - head.p25)
        let headAbove = max(0, head.p75 - head.p50)
        let noise =
            difference > 0
            ? headBelow + min(max(0, entry.p75 - entry.median), headAbove)
            : headAbove + min(max(0, entry.median - entry.p25), headBelow)
        let verdict: Verdict
        if entry.rounds < minimumRounds || head.rounds < minimumRounds {
            verdict = .tooFewRounds
        } else if abs(relative) <= tolerance {
            verdict = .unchanged
        } else if abs(difference) <= noise {
            verdict = .withinNoise
        } else {
            verdict = difference > 0 ? .regressed : .improved
        }
        return Row(
            scenario: name, metric: "time", base: entry.median, head: head.p50, verdict: verdict,
            description: entry.description)
    }
}
