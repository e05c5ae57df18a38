import Synchronization

/// Runs a call so that it ends by its deadline whatever its parts do.
///
/// Without a deadline the call runs in the caller's task and cancellation is Swift's, cooperative: NAL's transports,
/// middleware, token refreshes and hooks' sleeps end at once with `.cancelled`; a part of yours that ignores
/// cancellation delays the `.cancelled`, and a late answer is never returned to a cancelled caller. This costs
/// nothing per call. With a deadline the call runs in a task of its own, raced against a timer and the caller's
/// cancellation: it ends with `onDeadline` when the deadline passes, and with `.cancelled` when the caller is
/// cancelled, even while a part ignores both. The call's task is then cancelled and left to finish on its own (a
/// download it leaves behind is found, and waited for, by the next call to the same destination).
enum CallRace {
    typealias Outcome = Result<Response, NALError>

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
                finish.resume(.success(try await operation()))
            } catch {
                finish.resume(.failure(error))
            }
        }
        let timer = DeadlineTimer(deadline) { finish.resume(.failure(onDeadline)) }
        let outcome = await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in finish.wait(continuation) }
        } onCancel: {
            finish.resume(.failure(.cancelled))
        }
        work.cancel()
        timer.cancel()
        return try outcome.get()
    }

    /// The first outcome wins; a waiter that arrives after it is resumed at once.
    private final class Finish: Sendable {
        private struct State: Sendable {
            var outcome: Outcome?
            var waiter: UnsafeContinuation<Outcome, Never>?
        }

        // A Mutex stored in the object: one allocation per call, not two.
        private let state = Mutex(State())

        func resume(_ outcome: Outcome) {
            let waiter = state.withLock { state -> UnsafeContinuation<Outcome, Never>? in
                guard state.outcome == nil else { return nil }
                state.outcome = outcome
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: outcome)
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
    }
}
