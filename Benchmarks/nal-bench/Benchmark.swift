/// One timed job. `run` performs the job `iterations` times; keeping the loop inside the closure keeps call
/// overhead out of the per-op time.
///
/// A NAL scenario names the references it is compared with; references (hand-written Foundation code doing the
/// same job) are measured in the same interleaved rounds and are never gated on allocations.
struct Benchmark: Sendable {
    let name: String
    /// The references this scenario is compared with, by name.
    let references: [String]
    /// Whether this is a reference rather than NAL code.
    let isReference: Bool
    /// Whether the allocation gate bounds what this scenario allocates above its first reference rather than in
    /// total: for scenarios that run inside URLSession, whose own allocations vary from machine to machine.
    let gatedAboveReference: Bool
    let run: @Sendable (_ iterations: Int) async throws -> Void

    init(
        _ name: String, comparedWith references: [String] = [], gatedAboveReference: Bool = false,
        run: @escaping @Sendable (_ iterations: Int) async throws -> Void
    ) {
        self.name = name
        self.references = references
        isReference = false
        self.gatedAboveReference = gatedAboveReference
        self.run = run
    }

    private init(reference name: String, run: @escaping @Sendable (_ iterations: Int) async throws -> Void) {
        self.name = name
        references = []
        isReference = true
        gatedAboveReference = false
        self.run = run
    }

    /// A hand-written reference for NAL scenarios to be compared with.
    static func reference(
        _ name: String, run: @escaping @Sendable (_ iterations: Int) async throws -> Void
    )
        -> Benchmark
    {
        Benchmark(reference: name, run: run)
    }
}

/// Keeps a value alive so the optimiser cannot drop the work that made it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
