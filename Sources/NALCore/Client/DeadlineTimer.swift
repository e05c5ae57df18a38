import Dispatch

/// Runs an action once at a deadline unless it is cancelled first; a cancelled timer frees what it holds at once.
/// Each action runs in a task of its own, so that a slow one (a body's observers run when its deadline stops it)
/// delays no other deadline.
///
/// NAL's per-call deadlines (a call's total timeout, a streamed body's) are almost always cancelled: the call ends
/// first. A cancelled `Task.sleep` that had started keeps its dispatch timer, about 740 bytes, until the deadline
/// it was given (Swift 6.3 on Linux, measured: 100,000 calls cancelled under a 20 s deadline held 74 MB until
/// then), so a busy client with a total timeout of a minute kept a minute of calls' timers. A timer source is
/// removed when cancelled. Package: StubServer's request timeouts use it too.
package final class DeadlineTimer: @unchecked Sendable {
    // @unchecked: a dispatch source is safe to schedule and cancel from any thread; it is set once, here.
    private let source: any DispatchSourceTimer

    /// One queue for every timer's firing, which only starts the action's task.
    private static let queue = DispatchQueue(label: "nal.deadlines")

    /// Schedules `action` for `deadline` (at once when it has passed).
    package init(_ deadline: ContinuousClock.Instant, action: @escaping @Sendable () -> Void) {
        source = DispatchSource.makeTimerSource(queue: Self.queue)
        let wait = deadline - .now
        // Saturates at 68 years, before reading the components (which trap past Int64.max seconds): a deadline
        // further away (validated timeouts cannot make one) must not overflow DispatchTime's nanoseconds.
        let longest = Duration.seconds(Int64(Int32.max))
        let nanoseconds =
            wait <= .zero
            ? 0
            : wait >= longest
                ? Int(Int32.max) * 1_000_000_000
                : Int(wait.components.seconds) * 1_000_000_000 + Int(wait.components.attoseconds / 1_000_000_000)
        let source = source
        source.setEventHandler {
            source.cancel()
            Task { action() }
        }
        source.schedule(deadline: .now() + .nanoseconds(nanoseconds), leeway: .milliseconds(1))
        source.activate()
    }

    /// Stops the timer: the action does not run, unless it has started already.
    package func cancel() {
        source.cancel()
    }
}
