import CTestProbes
import Foundation
import NALTestSupport
import Synchronization
import Testing

@testable import NALCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Deadline timers: a call's total timeout and a streamed body's")
struct DeadlineTimerTests {
    @Test("the action runs at its deadline, not before")
    func firesAtDeadline() async {
        let start = ContinuousClock.now
        let fired = await withCheckedContinuation { (continuation: CheckedContinuation<Duration, Never>) in
            _ = DeadlineTimer(start + .milliseconds(150)) { continuation.resume(returning: .now - start) }
        }
        #expect(fired >= .milliseconds(150))
    }

    @Test("a deadline whole seconds away is not cut to its fraction: 1.05 s does not fire before 1.05 s")
    func wholeSecondsCount() async throws {
        let start = ContinuousClock.now
        let firedAt = Mutex<ContinuousClock.Instant?>(nil)
        let timer = DeadlineTimer(start + .milliseconds(1_050)) { firedAt.withLock { $0 = .now } }
        try await Task.sleep(for: .milliseconds(300))
        timer.cancel()
        // A loaded machine may sleep past the deadline, and then the timer has fired: but never before it.
        let fired = firedAt.withLock { $0 }
        if let fired { #expect(fired - start >= .milliseconds(1_050)) }
    }

    @Test("a cancelled timer never runs its action")
    func cancelledNeverFires() async throws {
        let fired = Atomic<Bool>(false)
        // 400 ms: more than a loaded machine takes between the two statements; the wait is long enough to see it.
        let timer = DeadlineTimer(.now + .milliseconds(400)) { fired.store(true, ordering: .relaxed) }
        timer.cancel()
        try await Task.sleep(for: .milliseconds(1_000))
        let ran = fired.load(ordering: .relaxed)
        #expect(!ran)
    }

    @Test("a deadline already past runs at once; one centuries away waits without trapping")
    func extremeDeadlines() async throws {
        let past = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            _ = DeadlineTimer(.now - .seconds(5)) { continuation.resume(returning: true) }
        }
        #expect(past)
        let fired = Atomic<Bool>(false)
        let far = DeadlineTimer(.now + .seconds(Int64.max) * 2) { fired.store(true, ordering: .relaxed) }
        try await Task.sleep(for: .milliseconds(50))
        far.cancel()
        let ran = fired.load(ordering: .relaxed)
        #expect(!ran)
    }

    #if os(Linux)
        /// A cancelled `Task.sleep` that had started keeps its timer, about 740 bytes, until its deadline: 10,000
        /// calls under a one-minute total timeout would hold 7 MB for that minute.
        @Test(
            "calls that end before their total timeout leave no timer behind: 10,000 calls keep under 1 MB",
            .enabled(if: nal_heap_bytes_in_use() >= 0, "the heap in use is known with glibc 2.33+, no sanitizer"))
        func endedCallsKeepNoTimer() async {
            // In a child process: the heap's size in use is the process's, so nothing else may run beside it.
            await inChildProcess {
                let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
                    let client = Client<TestEndpoint>(transport: QuickTransport())
                    let endpoint = TestEndpoint(path: "quick", totalTimeout: 60)
                    func calls(_ count: Int) async {
                        await withTaskGroup(of: Void.self) { group in
                            for _ in 0..<8 {
                                group.addTask {
                                    for _ in 0..<(count / 8) { _ = try? await client.request(endpoint) }
                                }
                            }
                        }
                    }
                    // Warm-up: the runtime's and dispatch's caches fill.
                    await calls(2_000)
                    let before = nal_heap_bytes_in_use()
                    await calls(10_000)
                    // A cancelled timer source is freed shortly after, on its queue: wait up to 5 s for that (a loaded
                    // machine is slow to), far less than the minute a sleeping task would keep its memory.
                    var growth = nal_heap_bytes_in_use() - before
                    for _ in 0..<50 where growth > 1_000_000 {
                        try? await Task.sleep(for: .milliseconds(100))
                        growth = nal_heap_bytes_in_use() - before
                    }
                    if growth > 1_000_000 {
                        print("10,000 calls ended before their total timeout left \(growth) bytes on the heap")
                        exit(1)
                    }
                    exit(0)
                }
                if let result, result.exitStatus != .exitCode(0) {
                    Issue.record("\(String(decoding: result.standardOutputContent, as: UTF8.self))")
                }
            }
        }
    #endif
}

/// Answers after a millisecond, so that a call's deadline timer has started when the call ends.
private struct QuickTransport: Transport {
    func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
        do { try await Task.sleep(for: .milliseconds(1)) } catch { throw .cancelled }
        return try MemoryTransport.response(to: request)
    }
}
