import NALCore
import NALLogging

/// Runs at most one refresh at a time, and tells requests whether the token they used is still the current one.
///
/// Every successful refresh starts a new generation. A request notes the generation of the token it sent; when its
/// response asks for a refresh, it refreshes only if no refresh has completed since (otherwise the token it used is
/// already replaced and it just replays), and it waits for a refresh that is already running instead of starting
/// another. Waiting ends at once when the waiting task is cancelled; the refresh itself goes on for the others.
///
/// After a refresh fails, no other starts for `cooldown`: a request that needs one in that time fails at once with
/// the same error, instead of sending the refresh endpoint a storm of attempts (Alamofire's refresh window).
final class TokenRefresher: Sendable {
    /// A refresh that failed, and the response that asked for it.
    struct Failure: Error {
        let underlying: any Error
        let trigger: Response?
    }

    private typealias Waiter = UnsafeContinuation<Result<Void, any Error>, Never>

    private struct State: Sendable {
        var generation: UInt64 = 0
        var running = false
        /// The response that asked for the running refresh.
        var trigger: Response?
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiter: UInt64 = 0
        /// The last failure, while its cool-down lasts.
        var failure: (error: Failure, until: ContinuousClock.Instant)?
    }

    private let state = Locked(State())
    private let refresh: @Sendable () async throws -> Void
    let cooldown: Duration

    init(cooldown: Duration, refresh: @escaping @Sendable () async throws -> Void) {
        self.cooldown = cooldown
        self.refresh = refresh
    }

    /// Ends the cool-down of a failed refresh, so that the next request that needs one starts it.
    func resetCooldown() {
        state.withLock { $0.failure = nil }
    }

    /// The current generation, after waiting for a refresh that is running. Throws the refresh's `Failure` if it
    /// fails (with the response that asked for it), or `CancellationError` if the caller is cancelled meanwhile.
    func currentGeneration() async throws -> UInt64 {
        guard state.withLock({ $0.running }) else { return state.withLock { $0.generation } }
        try await waitForRunningRefresh()
        return state.withLock { $0.generation }
    }

    /// Makes sure the token of `generation` has been replaced: starts a refresh, joins the one running, or returns
    /// at once when a later generation exists. `trigger` is the response that asks for it. Throws `Failure` when the
    /// refresh fails or a recent one failed (within the cool-down), `CancellationError` when the caller is
    /// cancelled while it waits.
    func refresh(replacing generation: UInt64, trigger: Response) async throws {
        enum Decision { case replaced, join, start, coolingDown(Failure) }
        let decision = state.withLock { state -> Decision in
            if state.generation != generation { return .replaced }
            if state.running { return .join }
            if let failure = state.failure, ContinuousClock.now < failure.until { return .coolingDown(failure.error) }
            state.running = true
            state.trigger = trigger
            state.failure = nil
            return .start
        }
        switch decision {
        case .replaced:
            return
        case .coolingDown(let failure):
            throw Failure(underlying: failure.underlying, trigger: trigger)
        case .join:
            break
        case .start:
            MiddlewareLog.middleware.info("access token refresh started")
            Task { await self.run() }
        }
        try await waitForRunningRefresh()
    }

    private func run() async {
        let outcome: Result<Void, any Error>
        do {
            try await refresh()
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        let (waiters, result) = state.withLock { state -> ([Waiter], Result<Void, any Error>) in
            defer {
                state.waiters = [:]
                state.running = false
                state.trigger = nil
            }
            switch outcome {
            case .success:
                state.generation &+= 1
                return (Array(state.waiters.values), .success(()))
            case .failure(let error):
                let failure = Failure(underlying: error, trigger: state.trigger)
                state.failure = (failure, ContinuousClock.now + cooldown)
                return (Array(state.waiters.values), .failure(failure))
            }
        }
        for waiter in waiters { waiter.resume(returning: result) }
    }

    /// Waits for the running refresh to end; returns at once when none runs.
    private func waitForRunningRefresh() async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter &+= 1
            return state.nextWaiter
        }
        let result = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: Waiter) in
                let resumeNow = state.withLock { state -> Result<Void, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    guard state.running else {
                        return state.failure.map { .failure($0.error) } ?? .success(())
                    }
                    state.waiters[id] = continuation
                    return nil
                }
                if let resumeNow { continuation.resume(returning: resumeNow) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: .failure(CancellationError()))
        }
        try result.get()
    }
}
