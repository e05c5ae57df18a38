import Dispatch
import Synchronization

/// Runs a call so that it ends by its deadline whatever its parts do.
///
/// Without a deadline the call runs in the caller's task and cancellation is Swift's, cooperative: NAL's transports,
/// middleware, token refreshes and hooks' sleeps end at once with `.cancelled`; a part of yours that ignores
/// cancellation delays the `.cancelled`, and a late answer is never returned to a cancelled caller. This costs
/// nothing per call. With a deadline the call runs in a task of its own, raced against a timer and the caller's
/// cancellation: it ends with `onDeadline` when the deadline passes, and with `.cancelled` when the caller is
/// cancelled, even while a part ignores both. The call's task is then cancelled and given `cleanupGrace` to finish
/// (a download records where to resume, an upload closes its file) before the caller gets the error, so that a call
/// made at once finds things in order; after that it is left to finish on its own.
enum CallRace {
    typealias Outcome = Result<Response, NALError>

    /// How long an abandoned call may take to clean up before the caller gets its error.
    static let cleanupGrace: DispatchTimeInterval = .milliseconds(250)

    static func run(
        deadline: ContinuousClock.Instant?, onDeadline: NALError,
        _ operation: @escaping @Sendable () async throws(NALError) -> Response
    ) async throws(NALError) -> Response {
        if Task.isCancelled { throw .cancelled }
        guard let deadline else {
            let response = try await operation()
            if Task.isCancelled { throw .cancelled }
            return response
        }
        let finish = Finish()
        let work = Task {
            do throws(NALError) {
                finish.resume(.success(try await operation()), fromWork: true)
            } catch {
                finish.resume(.failure(error), fromWork: true)
            }
        }
        let timer = Task {
            guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
            finish.resume(.failure(onDeadline), fromWork: false)
        }
        let outcome = await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in finish.wait(continuation) }
        } onCancel: {
            finish.resume(.failure(.cancelled), fromWork: false)
        }
        timer.cancel()
        if !finish.workEnded {
            work.cancel()
            await finish.waitForWork(upTo: cleanupGrace)
        }
        return try outcome.get()
    }

    /// The first outcome wins; a waiter that arrives after it is resumed at once. Also tracks when the work itself
    /// ended, for the cleanup grace.
    private final class Finish: Sendable {
        private struct State: Sendable {
            var outcome: Outcome?
            var waiter: UnsafeContinuation<Outcome, Never>?
            var workEnded = false
            var cleanupWaiter: UnsafeContinuation<Void, Never>?
        }

        // A Mutex stored in the object: one allocation per call, not two.
        private let state = Mutex(State())

        var workEnded: Bool { state.withLock { $0.workEnded } }

        func resume(_ outcome: Outcome, fromWork: Bool) {
            let (waiter, cleanupWaiter) = state.withLock {
                state -> (UnsafeContinuation<Outcome, Never>?, UnsafeContinuation<Void, Never>?) in
                var cleanupWaiter: UnsafeContinuation<Void, Never>?
                if fromWork {
                    state.workEnded = true
                    cleanupWaiter = state.cleanupWaiter
                    state.cleanupWaiter = nil
                }
                guard state.outcome == nil else { return (nil, cleanupWaiter) }
                state.outcome = outcome
                defer { state.waiter = nil }
                return (state.waiter, cleanupWaiter)
            }
            waiter?.resume(returning: outcome)
            cleanupWaiter?.resume()
        }

        func wait(_ continuation: UnsafeContinuation<Outcome, Never>) {
            let ready = state.withLock { state -> Outcome? in
                guard let outcome = state.outcome else {
                    state.waiter = continuation
                    return nil
                }
                return outcome
            }
            if let ready { continuation.resume(returning: ready) }
        }

        /// Waits until the work ended or `grace` passed, whichever is first; not cut short by cancellation, which
        /// is what started the wait.
        func waitForWork(upTo grace: DispatchTimeInterval) async {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                let ended = state.withLock { state -> Bool in
                    if state.workEnded { return true }
                    state.cleanupWaiter = continuation
                    return false
                }
                guard !ended else { return continuation.resume() }
                DispatchQueue.global().asyncAfter(deadline: .now() + grace) { [self] in
                    let waiter = state.withLock { state -> UnsafeContinuation<Void, Never>? in
                        defer { state.cleanupWaiter = nil }
                        return state.cleanupWaiter
                    }
                    waiter?.resume()
                }
            }
        }
    }
}
