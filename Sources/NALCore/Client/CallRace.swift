import NALLogging

/// Runs a call so that it ends on time whatever its parts do: at its deadline with the given error, and at once
/// with `NALError.cancelled` when the caller is cancelled, even while a middleware or hook ignores cancellation.
/// The call's own task is cancelled then, and left to finish on its own.
enum CallRace {
    typealias Outcome = Result<Response, NALError>

    static func run(
        deadline: ContinuousClock.Instant?, onDeadline: NALError,
        _ operation: @escaping @Sendable () async throws(NALError) -> Response
    ) async throws(NALError) -> Response {
        if Task.isCancelled { throw .cancelled }
        let finish = Finish()
        let work = Task {
            do throws(NALError) {
                finish.resume(.success(try await operation()))
            } catch {
                finish.resume(.failure(error))
            }
        }
        let timer = deadline.map { deadline in
            Task {
                guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
                finish.resume(.failure(onDeadline))
            }
        }
        let outcome = await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in finish.wait(continuation) }
        } onCancel: {
            finish.resume(.failure(.cancelled))
        }
        work.cancel()
        timer?.cancel()
        return try outcome.get()
    }

    /// The first outcome wins; a waiter that arrives after it is resumed at once.
    private final class Finish: Sendable {
        private struct State: Sendable {
            var outcome: Outcome?
            var waiter: UnsafeContinuation<Outcome, Never>?
        }

        private let state = Locked(State())

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
