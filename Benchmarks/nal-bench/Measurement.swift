import CMallocCounter
import Foundation

/// What one benchmark measured.
struct Measurement: Codable {
    let name: String
    let baseline: String?
    let iterations: Int
    let p50: Double
    let p90: Double
    let p99: Double
    /// Allocations per operation, or `nil` where they cannot be counted.
    let mallocsPerOp: Double?
    /// NAL ÷ baseline at p50, set once the baseline has run.
    var ratio: Double?

    var throughputPerSecond: Double { p50 > 0 ? 1e9 / p50 : 0 }
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

    static func measure(_ benchmark: Benchmark, limits: RunLimits) async throws -> Measurement {
        let clock = ContinuousClock()
        let warmUpEnd = clock.now.advanced(by: limits.warmUp)
        while clock.now < warmUpEnd { try await benchmark.run(batch) }

        // Allocations are deterministic, so one counted batch after warm-up is exact.
        let mallocsPerOp: Double?
        if nal_malloc_counting_available() == 1 {
            let before = nal_malloc_count()
            try await benchmark.run(batch)
            mallocsPerOp = Double(nal_malloc_count() - before) / Double(batch)
        } else {
            mallocsPerOp = nil
        }

        var samples: [Double] = []
        samples.reserveCapacity(limits.maxIterations / batch + 1)
        var iterations = 0
        let end = clock.now.advanced(by: limits.maxTime)
        while iterations < limits.maxIterations {
            let start = clock.now
            try await benchmark.run(batch)
            let stop = clock.now
            samples.append(Double((stop - start).nanoseconds) / Double(batch))
            iterations += batch
            if stop >= end { break }
        }
        samples.sort()
        func percentile(_ fraction: Double) -> Double {
            samples[min(samples.count - 1, Int(Double(samples.count) * fraction))]
        }
        return Measurement(
            name: benchmark.name, baseline: benchmark.baseline, iterations: iterations,
            p50: percentile(0.5), p90: percentile(0.9), p99: percentile(0.99), mallocsPerOp: mallocsPerOp)
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
