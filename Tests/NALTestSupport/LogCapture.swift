package import NALLogging

/// Lets tests that change the process-wide logging set-up take turns.
///
/// Every test target runs in one process and Swift Testing runs suites in parallel, so a test that replaces the
/// sinks or the levels would otherwise swap them under another test's feet. Such a test runs its body inside
/// `exclusively` (or `capture`), and filters what it reads by subsystem, category or its own unique text: tests
/// that only log, without changing the set-up, still add entries to whatever sink is installed.
package enum LogCapture {
    private static let lock = AsyncLock()

    /// Runs `body` while no other test changes logging; the default set-up is restored afterwards.
    package static func exclusively<T>(_ body: () async throws -> T) async rethrows -> T {
        await lock.acquire()
        defer {
            LoggingSystem.bootstrapForTesting(sinks: [StandardErrorSink()], configuration: LogConfiguration())
            lock.release()
        }
        return try await body()
    }

    /// Runs `body` with a fresh in-memory sink and the levels of `spec` (a `NAL_LOG` value), exclusively.
    package static func capture<T>(_ spec: String = "debug", _ body: (InMemorySink) async throws -> T) async throws -> T
    {
        try await exclusively {
            let sink = InMemorySink()
            LoggingSystem.bootstrapForTesting(sinks: [sink], configuration: try LogConfiguration.parse(spec))
            return try await body(sink)
        }
    }
}

extension LogCapture {
    /// Runs `body` with logs captured, exclusively; returns its value and the warnings NAL logged about settings it
    /// clamped (`Type setting value is below …; using …`). Tests in parallel may log such warnings too, so a test
    /// picks values no other uses and filters by them.
    package static func settingWarnings<T>(_ body: () async throws -> T) async throws -> (T, [String]) {
        try await capture("dev.nal=debug") { sink in
            let value = try await body()
            let warnings = sink.entries(level: .error, subsystem: Logger.nalSubsystem).map(\.message).filter {
                $0.contains("; using ")
            }
            return (value, warnings)
        }
    }
}

/// A lock that suspends instead of blocking a thread, so waiting tests don't starve Swift's cooperative pool.
final class AsyncLock: Sendable {
    private struct State: Sendable {
        var held = false
        var waiters: [UnsafeContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    func acquire() async {
        await withUnsafeContinuation { continuation in
            let granted = state.withLock { state -> Bool in
                guard state.held else {
                    state.held = true
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    func release() {
        let next = state.withLock { state -> UnsafeContinuation<Void, Never>? in
            guard !state.waiters.isEmpty else {
                state.held = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
