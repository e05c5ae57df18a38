import Foundation

/// Runs exit tests (`#expect(processExitsWith:)`) off the cooperative pool.
///
/// Swift Testing's parent side reads the child's back channel with a blocking `read` in a task-group child task, so
/// each exit test holds a cooperative thread for as long as its child runs. On two cores the pool has two threads:
/// two exit tests at once stopped every other test for seconds and broke their timing bounds. Child tasks inherit a
/// task executor preference, so under `inChildProcess` those reads block a thread of their own instead.
package final class ChildProcessExecutor: TaskExecutor {
    package static let shared = ChildProcessExecutor()

    /// Each job gets a thread: the reads it may block on end only when the child exits, and they must not wait for
    /// one another.
    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        let thread = Thread { job.runSynchronously(on: executor) }
        thread.stackSize = 1 << 20
        thread.start()
    }
}

/// Runs `body`, which holds an exit test, so that the test's blocking reads stay off the cooperative pool.
package func inChildProcess(_ body: () async -> Void) async {
    await withTaskExecutorPreference(ChildProcessExecutor.shared) { await body() }
}
