import Foundation
import NALCore
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Holds the work queue that every `URLSession` in the process shares (Linux fact 26): FoundationNetworking starts a
/// protocol on its task's work queue, and this one sleeps there.
final class WorkQueueHoldingProtocol: URLProtocol {
    static let host = "hold.test"
    static let hold: TimeInterval = 4

    override class func canInit(with request: URLRequest) -> Bool { request.url?.host == host }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        Thread.sleep(forTimeInterval: Self.hold)
        client?.urlProtocol(self, didFailWithError: URLError(.timedOut))
    }

    override func stopLoading() {}
}

@Suite("The cooperative thread pool while the shared work queue is busy")
struct CooperativePoolTests {
    @Test("calls that start while the shared work queue is held block no thread of the cooperative pool")
    func startsDoNotBlockThePool() async {
        // In a child process: holding the shared work queue would stall every other test's calls.
        await inChildProcess {
            await #expect(processExitsWith: .success) {
                let configuration = URLSessionConfiguration.ephemeral
                configuration.protocolClasses = [WorkQueueHoldingProtocol.self]
                let holder = URLSession(configuration: configuration)
                // Started from a dispatch thread: `resume()` itself waits for the work queue.
                DispatchQueue.global().async {
                    let url = URL(string: "http://\(WorkQueueHoldingProtocol.host)/") ?? URL(fileURLWithPath: "/")
                    holder.dataTask(with: url).resume()
                }
                try? await Task.sleep(for: .milliseconds(300))
                // More calls than the pool has threads; each creates and resumes a task while the queue is held.
                let client = Client<TestEndpoint>()
                let base = URL(string: "http://127.0.0.1:9") ?? URL(fileURLWithPath: "/")
                let calls = (0..<8).map { _ in
                    Task { _ = try? await client.request(TestEndpoint(baseURL: base, path: "x", timeout: 30)) }
                }
                // Ten short sleeps take half a second when the pool runs, and the whole hold when it is blocked.
                let clock = ContinuousClock()
                let start = clock.now
                for _ in 0..<10 { try? await Task.sleep(for: .milliseconds(50)) }
                let elapsed = clock.now - start
                for call in calls { call.cancel() }
                if elapsed > .seconds(WorkQueueHoldingProtocol.hold * 0.6) {
                    print("the pool was blocked for \(elapsed)")
                    exit(1)
                }
                exit(0)
            }
        }
    }
}
