import Dispatch
import NALLogging

/// Turns a transport's byte counts into `TransferProgress` events for one attempt of a call.
///
/// Events are paced: one when at least `minimumInterval` has passed or the fraction has grown by a percent since
/// the last, and always the final one. They are delivered in order and never go backwards, whichever thread
/// reports the bytes.
package final class ProgressReporter: Sendable {
    private struct State: Sendable {
        var progress: TransferProgress
        var lastEmitted: ContinuousClock.Instant?
        var lastFraction: Double = 0
        var completed = false
        /// With a delivery queue: the newest event not yet handed to the handler, and whether a hand-over is
        /// queued. A handler slower than the events sees the newest one, not a backlog.
        var undelivered: TransferProgress?
        var handOverQueued = false
    }

    /// The least time between two events, unless the fraction grew by a percent.
    static let minimumInterval: Duration = .milliseconds(20)

    private let handler: TransferProgressHandler
    private let measuresUpload: Bool
    private let state: Locked<State>
    /// Where the handler runs, when not on the thread that reports the bytes: a transport's event loop must not
    /// wait for a slow handler. Serial, and it takes the newest event each time, so events arrive in order and a
    /// slow handler skips the ones it was too slow for (the final event is never skipped: nothing comes after it).
    private let delivery: DispatchQueue?

    /// A reporter for one attempt, or `nil` when nobody listens.
    ///
    /// - Parameters:
    ///   - measuresUpload: whether `fractionCompleted` measures the request body sent (an upload) rather than the
    ///     response body received.
    ///   - deliversAsynchronously: whether the handler runs on a queue of its own instead of the reporting thread;
    ///     then `delivered()` waits for the events reported so far.
    package init?(
        _ handler: TransferProgressHandler?, attempt: Int, measuresUpload: Bool, totalBytesToSend: Int64? = nil,
        deliversAsynchronously: Bool = false
    ) {
        guard let handler else { return nil }
        self.handler = handler
        self.measuresUpload = measuresUpload
        delivery = deliversAsynchronously ? DispatchQueue(label: "nal.progress") : nil
        state = Locked(State(progress: TransferProgress(totalBytesToSend: totalBytesToSend, attempt: attempt)))
    }

    /// The request body sent so far, and its size when known.
    package func sent(_ bytes: Int64, of expected: Int64?) {
        update { progress in
            progress.bytesSent = max(progress.bytesSent, bytes)
            if let expected, expected > 0 { progress.totalBytesToSend = expected }
        }
    }

    /// The response body's size, once a response announces it; `alreadyReceived` counts bytes a resumed download
    /// kept from before.
    package func expectReceiving(_ total: Int64?, alreadyReceived: Int64) {
        update { progress in
            progress.totalBytesToReceive = total
            progress.bytesReceived = alreadyReceived
        }
    }

    /// `count` more response body bytes arrived.
    package func received(_ count: Int) {
        update { $0.bytesReceived += Int64(count) }
    }

    /// The transfer ended well: the final event, with the totals now known and a fraction of 1.
    package func complete() {
        state.withLock { state in
            guard !state.completed else { return }
            state.completed = true
            var progress = state.progress
            progress.totalBytesToSend = progress.totalBytesToSend ?? progress.bytesSent
            progress.bytesSent = progress.totalBytesToSend ?? progress.bytesSent
            progress.totalBytesToReceive = progress.bytesReceived
            progress.fractionCompleted = 1
            state.progress = progress
            deliver(progress, &state)
        }
    }

    /// Returns once every event reported so far has reached the handler.
    package func delivered() async {
        guard let delivery else { return }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            delivery.async { done.resume() }
        }
    }

    /// Calls the handler here, or hands the event to the delivery queue; called under the lock.
    private func deliver(_ progress: TransferProgress, _ state: inout State) {
        guard let delivery else { return handler(progress) }
        state.undelivered = progress
        guard !state.handOverQueued else { return }
        state.handOverQueued = true
        delivery.async { [self] in
            let newest = self.state.withLock { state in
                defer {
                    state.undelivered = nil
                    state.handOverQueued = false
                }
                return state.undelivered
            }
            if let newest { handler(newest) }
        }
    }

    private func update(_ change: (inout TransferProgress) -> Void) {
        state.withLock { state in
            guard !state.completed else { return }
            change(&state.progress)
            let fraction = fraction(of: state.progress)
            state.progress.fractionCompleted = fraction
            let now = ContinuousClock.now
            let intervalPassed = state.lastEmitted.map { now - $0 >= Self.minimumInterval } ?? true
            let due = intervalPassed || (fraction ?? 0) - state.lastFraction >= 0.01
            guard due, (fraction ?? 0) < 1 else { return }
            state.lastEmitted = now
            state.lastFraction = fraction ?? state.lastFraction
            // Under the lock, so that events from different threads arrive in order.
            deliver(state.progress, &state)
        }
    }

    private func fraction(of progress: TransferProgress) -> Double? {
        let (done, total) =
            measuresUpload
            ? (progress.bytesSent, progress.totalBytesToSend) : (progress.bytesReceived, progress.totalBytesToReceive)
        guard let total, total > 0 else { return nil }
        return min(1, Double(done) / Double(total))
    }
}
