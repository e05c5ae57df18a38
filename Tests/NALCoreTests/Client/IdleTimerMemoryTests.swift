import CTestProbes
import Foundation
import NALCore
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A URLProtocol that takes a request and never answers: a call that stays in flight with no network and no
/// allocation of its own while it waits.
final class SilentProtocol: URLProtocol {
    static let host = "silent.test"

    override class func canInit(with request: URLRequest) -> Bool { request.url?.host == host }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }
    override func startLoading() {}
    override func stopLoading() {}
}

@Suite("The idle timer over a long call")
struct IdleTimerMemoryTests {
    #if os(Linux)
        @Test(
            "ticking keeps no memory: a call that waits for three seconds (600 ticks) leaves the heap as it was",
            .enabled(if: nal_heap_bytes_in_use() >= 0, "the heap in use is known with glibc 2.33+, no sanitizer"))
        func ticksKeepNoMemory() async {
            // In a child process: the heap's size in use is the process's, so nothing else may run beside it.
            await inChildProcess {
                let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
                    let configuration = URLSessionConfiguration.ephemeral
                    configuration.protocolClasses = [SilentProtocol.self]
                    let client = Client<TestEndpoint>(transport: URLSessionTransport(configuration: configuration))
                    let base = URL(string: "http://\(SilentProtocol.host)") ?? URL(fileURLWithPath: "/")
                    let call = Task { () -> NALError? in
                        do throws(NALError) {
                            _ = try await client.request(TestEndpoint(baseURL: base, path: "wait", timeout: 60))
                            return nil
                        } catch {
                            return error
                        }
                    }
                    // Warm-up: the call's own allocations are made, and the timer has ticked a hundred times.
                    try? await Task.sleep(for: .milliseconds(500))
                    let before = nal_heap_bytes_in_use()
                    try? await Task.sleep(for: .seconds(3))
                    let growth = nal_heap_bytes_in_use() - before
                    call.cancel()
                    // The call was still waiting, so the timer ticked all along: it ends only when cancelled.
                    guard case .cancelled? = await call.value else {
                        print("the call ended before it was cancelled: \(String(describing: await call.value))")
                        exit(2)
                    }
                    // A timer that keeps one 32-byte block per tick adds 19,200 bytes (the closure kept in `Locked`
                    // added 38,700 in 400 ticks); a bounded one adds what the runtime's caches settle to (336 to
                    // 1,440 bytes measured). A loaded machine ticks less, which only lowers the growth.
                    if growth > 8_000 {
                        print("the heap grew by \(growth) bytes over 600 idle-timer ticks")
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
