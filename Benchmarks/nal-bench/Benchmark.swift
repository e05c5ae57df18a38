/// One timed job. `run` performs the job `iterations` times; keeping the loop inside the closure keeps call
/// overhead out of the per-op time.
///
/// A NAL scenario names the references it is compared with; references (hand-written Foundation code doing the
/// same job) are measured in the same interleaved rounds and are never gated on allocations.
struct Benchmark: Sendable {
    let name: String
    /// What the scenario measures and why it matters, shown in reports and kept in baselines.
    let description: String
    /// The references this scenario is compared with, by name.
    let references: [String]
    /// Whether this is a reference rather than NAL code.
    let isReference: Bool
    /// Whether the allocation gate bounds what this scenario allocates above its first reference rather than in
    /// total: for scenarios that run inside URLSession, whose own allocations vary from machine to machine.
    let gatedAboveReference: Bool
    /// How much slower (a fraction of the baseline's median) a run may be before `--compare` calls it a regression.
    let timeTolerance: Double
    /// How many more allocations per op than the baseline `--compare` accepts: 0 for pure NAL code, whose count is
    /// the same in every run.
    let allocationTolerance: Double
    let run: @Sendable (_ iterations: Int) async throws -> Void

    /// The tolerance for time when a scenario states none: 10 %.
    static let defaultTimeTolerance = 0.10

    init(
        _ name: String, measures description: String, comparedWith references: [String] = [],
        gatedAboveReference: Bool = false, timeTolerance: Double = Benchmark.defaultTimeTolerance,
        allocationTolerance: Double = 0, run: @escaping @Sendable (_ iterations: Int) async throws -> Void
    ) {
        self.name = name
        self.description = description
        self.references = references
        isReference = false
        self.gatedAboveReference = gatedAboveReference
        self.timeTolerance = timeTolerance
        self.allocationTolerance = allocationTolerance
        self.run = run
    }

    private init(
        reference name: String, description: String, run: @escaping @Sendable (_ iterations: Int) async throws -> Void
    ) {
        self.name = name
        self.description = description
        references = []
        isReference = true
        gatedAboveReference = false
        timeTolerance = Benchmark.defaultTimeTolerance
        allocationTolerance = 0
        self.run = run
    }

    /// A hand-written reference for NAL scenarios to be compared with.
    static func reference(
        _ name: String, measures description: String, run: @escaping @Sendable (_ iterations: Int) async throws -> Void
    )
        -> Benchmark
    {
        Benchmark(reference: name, description: description, run: run)
    }
}

/// Keeps a value alive so the optimiser cannot drop the work that made it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
