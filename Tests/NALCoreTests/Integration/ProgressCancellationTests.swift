import Dispatch
import Foundation
import NALLogging
import NALTestSupport
import Testing

@testable import NALCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The task of a call, for its own progress handler to cancel.
private final class CallBox: Sendable {
    private let state = Locked((task: Task<NALError?, Never>?.none, cancelled: false))

    /// Keeps the call's task; cancels it at once if its handler asked before the task was known (the call starts
    /// before `Task {}` returns, and a loaded machine can deliver the first progress event first).
    func set(_ task: Task<NALError?, Never>) {
        let cancelNow = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        if cancelNow { task.cancel() }
    }

    /// Cancels the call; returns whether the task was known, that is whether this cancel came from the handler
    /// while the call ran rather than waiting for `set`.
    @discardableResult
    func cancel() -> Bool {
        let task = state.withLock { state in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
        return task != nil
    }
}

/// Progress handlers that cancel their own call. A task's cancellation handlers run at once, on the thread that
/// cancels, and end the call under the transport's lock: a handler called under that lock deadlocks there. The
/// cancellation storms of `CancellationRaceTests` meet this only by chance; here it happens on every run.
@Suite(
    "Integration: progress handlers that cancel their call",
    .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
struct ProgressCancellationTests {
    @Test("a progress handler that cancels its own call on the first event ends it with .cancelled, at once")
    func handlerCancelsItsCall() async {
        // In a child process: a deadlock blocks the delegate queue, which would stop every other test's calls.
        await inChildProcess {
            let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
                DispatchQueue.global().asyncAfter(deadline: .now() + 20) {
                    print("a progress handler that cancelled its call deadlocked it")
                    exit(3)
                }
                let client = Client<TestEndpoint>(transport: TestTransports.make())
                // How many calls their progress handler cancelled while they ran.
                let cancelledByHandler = Locked(0)
                for _ in 0..<20 {
                    let box = CallBox()
                    let call = Task { () -> NALError? in
                        do throws(NALError) {
                            _ = try await client.request(
                                FaultServer.endpoint("source/200000"), options: RequestOptions(),
                                progress: { _ in if box.cancel() { cancelledByHandler.withLock { $0 += 1 } } })
                            return nil
                        } catch {
                            return error
                        }
                    }
                    box.set(call)
                    let outcome = await call.value
                    guard case .cancelled? = outcome else {
                        print("the call was not cancelled by its progress handler: \(String(describing: outcome))")
                        exit(1)
                    }
                }
                // A cancel that came before `set` proves nothing about a handler under the transport's lock.
                guard cancelledByHandler.withLock({ $0 }) > 0 else {
                    print("no progress handler cancelled its call while it ran")
                    exit(4)
                }
                exit(0)
            }
            if let result, result.exitStatus != .exitCode(0) {
                Issue.record("\(String(decoding: result.standardOutputContent, as: UTF8.self))")
            }
        }
    }
}
