import NALCore
import NALLogging

/// Runs at most one refresh at a time, and tells requests whether the token they used is still the current one.
///
/// Every successful refresh starts a new generation. A request notes the generation of the token it sent; when its
/// response asks for a refresh, it refreshes only if no refresh has completed since (otherwise the token it used is
/// already replaced and it just replays), and it waits for a refresh that is already running instead of starting
/// another.
final class TokenRefresher: Sendable {
    private struct State: Sendable {
        var generation: UInt64 = 0
        var running: Task<Void, any Error>?
    }

    private let state = Locked(State())
    private let refresh: @Sendable () async throws -> Void

    init(refresh: @escaping @Sendable () async throws -> Void) {
        self.refresh = refresh
    }

    /// The current generation, after waiting for a refresh that is running. Throws the refresh's error if it fails.
    func currentGeneration() async throws -> UInt64 {
        let (running, generation) = state.withLock { ($0.running, $0.generation) }
        guard let running else { return generation }
        try await running.value
        return state.withLock { $0.generation }
    }

    /// Makes sure the token of `generation` has been replaced: starts a refresh, joins the one running, or returns
    /// at once when a later generation exists. Returns whether this call started the refresh.
    @discardableResult
    func refresh(replacing generation: UInt64) async throws -> Bool {
        let (task, started) = state.withLock { state -> (Task<Void, any Error>?, Bool) in
            if state.generation != generation { return (nil, false) }
            if let running = state.running { return (running, false) }
            let task = Task {
                do {
                    try await self.refresh()
                    self.state.withLock {
                        $0.generation &+= 1
                        $0.running = nil
                    }
                } catch {
                    self.state.withLock { $0.running = nil }
                    throw error
                }
            }
            state.running = task
            return (task, true)
        }
        if started { MiddlewareLog.middleware.info("access token refresh started") }
        try await task?.value
        return started
    }
}
