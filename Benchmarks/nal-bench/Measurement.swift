import CMallocCounter
import Foundation

/// What one benchmark measured.
struct Measurement: Codable {
    let name: String
    let isReference: Bool
    let iterations: Int
    /// Timed rounds, one batch of each benchmark of the group per round: the samples behind the percentiles.
    var rounds: Int = 0
    /// Nanoseconds per op over the rounds (one batch each): the quartiles give the run's own spread.
    let p25: Double
    let p50: Double
    let p75: Double
    let p90: Double
    let p99: Double
    /// Allocations per operation, or `nil` where they cannot be counted.
    let mallocsPerOp: Double?
    /// For a scenario gated above its reference: its allocations per op minus the reference's, counted in the same
    /// interleaved batches. This is what its threshold bounds.
    var mallocsAboveReference: Double? = nil
    /// How far this scenario's allocation count may move without a change of code (Foundation-bound scenarios);
    /// `nil` for none. A/B reports (scripts/bench-ab.sh) read it as `--compare` reads the scenario's.
    var allocationTolerance: Double? = nil
    /// For a NAL scenario: the median over rounds of (this scenario's time ÷ the reference's time in that round),
    /// by reference name.
    var ratios: [String: Double] = [:]

    var throughputPerSecond: Double { p50 > 0 ? 1e9 / p50 : 0 }

    /// The run's own spread: the interquartile range of its rounds, in nanoseconds per op.
    var spread: Double { max(0, p75 - p25) }
}

struct RunLimits {
    var warmUp: Duration
    var maxTime: Duration
    var maxIterations: Int

    static let full = RunLimits(warmUp: .milliseconds(200), maxTime: .seconds(2), maxIterations: 5_000_000)
    static let quick = RunLimits(warmUp: .milliseconds(50), maxTime: .milliseconds(400), maxIterations: 1_000_000)
}

enum Runner {
    /// Operations per timed sample: enough that clock reads are noise, few enough for useful percentiles.
    static let batch = 64

    /// Measures a scenario together with its references in interleaved rounds: each round runs one batch of each,
    /// in an order that alternates between rounds, so that a noisy moment on a shared machine hits all of them.
    /// Ratios are the median of per-round ratios.
    static func measure(_ group: [Benchmark], limits: RunLimits) async throws -> [Measurement] {
        let clock = ContinuousClock()
        for benchmark in group {
            let warmUpEnd = clock.now.advanced(by: limits.warmUp)
            while clock.now < warmUpEnd { try await benchmark.run(batch) }
        }
        let mallocs = try await countAllocations(group)
        var samples = Array(repeating: [Double](), count: group.count)
        var roundRatios = Array(repeating: [Double](), count: group.count)
        var iterations = 0
        let end = clock.now.advanced(by: limits.maxTime * group.count)
        var round = 0
        while iterations < limits.maxIterations {
            var times = Array(repeating: 0.0, count: group.count)
            let order = round % 2 == 0 ? Array(group.indices) : group.indices.reversed()
            for index in order {
                let start = clock.now
                try await group[index].run(batch)
                times[index] = Double((clock.now - start).nanoseconds) / Double(batch)
            }
            for index in group.indices {
                samples[index].append(times[index])
                if index > 0, times[index] > 0 { roundRatios[index].append(times[0] / times[index]) }
            }
            iterations += batch
            round += 1
            if clock.now >= end { break }
        }
        var results: [Measurement] = []
        for (index, benchmark) in group.enumerated() {
            let sorted = samples[index].sorted()
            results.append(
                Measurement(
                    name: benchmark.name, isReference: benchmark.isReference, iterations: iterations, rounds: round,
                    p25: percentile(sorted, 0.25), p50: percentile(sorted, 0.5), p75: percentile(sorted, 0.75),
                    p90: percentile(sorted, 0.9), p99: percentile(sorted, 0.99),
                    mallocsPerOp: mallocs[index]))
            if benchmark.allocationTolerance > 0 { results[index].allocationTolerance = benchmark.allocationTolerance }
        }
        for index in group.indices.dropFirst() {
            results[0].ratios[group[index].name] = percentile(roundRatios[index].sorted(), 0.5)
        }
        if group[0].gatedAboveReference, group.count > 1, let own = mallocs[0], let reference = mallocs[1] {
            results[0].mallocsAboveReference = own - reference
        }
        return results
    }

    /// Allocations per op, the least over a few interleaved counted batches after warm-up. Pure NAL code allocates
    /// the same in every batch; URLSession's background threads add a varying amount, and the least is the count
    /// least disturbed by them.
    static func countAllocations(_ group: [Benchmark]) async throws -> [Double?] {
        guard nal_malloc_counting_available() == 1 else { return group.map { _ in nil } }
        var least = Array(repeating: Double.infinity, count: group.count)
        for _ in 0..<3 {
            for (index, benchmark) in group.enumerated() {
                let before = nal_malloc_count()
                try await benchmark.run(batch)
                least[index] = min(least[index], Double(nal_malloc_count() - before) / Double(batch))
            }
        }
        return least
    }

    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
