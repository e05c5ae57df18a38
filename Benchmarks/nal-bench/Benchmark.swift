/// One timed job. `run` performs the job `iterations` times; keeping the loop inside the closure keeps call
/// overhead out of the per-op time.
struct Benchmark: Sendable {
    let name: String
    /// The name of the hand-written Foundation job this one is compared with, if any.
    let baseline: String?
    let run: @Sendable (_ iterations: Int) async throws -> Void

    init(_ name: String, baseline: String? = nil, run: @escaping @Sendable (_ iterations: Int) async throws -> Void) {
        self.name = name
        self.baseline = baseline
        self.run = run
    }
}

/// Keeps a value alive so the optimiser cannot drop the work that made it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
