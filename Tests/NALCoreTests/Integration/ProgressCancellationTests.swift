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
    // @unchecked: `task` is only touched under `lock`.
    private let lock = NSLock()
    private var task: Task<NALError?, Never>?

    func set(_ task: Task<NALError?, Never>) { lock.withLock { self.task = task } }
    func cancel() { lock.withLock { task }?.cancel() }
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
                for _ in 0..<20 {
                    let box = CallBox()
                    let call = Task { () -> NALError? in
                        do throws(NALError) {
                            _ = try await client.request(
                                FaultServer.endpoint("source/200000"), options: RequestOptions(),
                                progress: { _ in box.cancel() })
                            return nil
                        } catch {
                            return error
                        }
                    }
                    box.set(call)
                    guard case .cancelled? = await call.value else {
                        print("the call was not cancelled by its progress handler")
                        exit(1)
                    }
                }
                exit(0)
            }
            if let result, result.exitStatus != .exitCode(0) {
                Issue.record("\(String(decoding: result.standardOutputContent, as: UTF8.self))")
            }
        }
    }
}
