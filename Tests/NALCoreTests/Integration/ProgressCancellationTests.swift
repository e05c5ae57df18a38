import Dispatch
import Foundation
import NALTestSupport
import Testing

@testable import NALCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The task of a call, for its own progress handler to cancel.
private final class CallBox: @unchecked Sendable {
    // @unchecked: `task` and `cancelled` are only touched under `lock`.
    private let lock = NSLock()
    private var task: Task<NALError?, Never>?
    private var cancelled = false

    /// Keeps the call's task; cancels it at once if its handler asked before the task was known (the call starts
    /// before `Task {}` returns, and a loaded machine can deliver the first progress event first).
    func set(_ task: Task<NALError?, Never>) {
        let cancelNow = lock.withLock {
            self.task = task
            return cancelled
        }
        if cancelNow { task.cancel() }
    }

    /// Cancels the call; returns whether the task was known, that is whether this cancel came from the handler
    /// while the call ran rather than waiting for `set`.
    @discardableResult
    func cancel() -> Bool {
        let task = lock.withLock {
            cancelled = true
            return self.task
        }
        task?.cancel()
        return task != nil
    }
}

/// How many calls their progress handler cancelled itself.
private final class Counter: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value = 0

    func increment() { lock.withLock { value += 1 } }
    var count: Int { lock.withLock { value } }
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
                let cancelledByHandler = Counter()
                for _ in 0..<20 {
                    let box = CallBox()
                    let call = Task { () -> NALError? in
                        do throws(NALError) {
                            _ = try await client.request(
                                FaultServer.endpoint("source/200000"), options: RequestOptions(),
                                progress: { _ in if box.cancel() { cancelledByHandler.increment() } })
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
                guard cancelledByHandler.count > 0 else {
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
