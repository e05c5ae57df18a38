import Foundation
import NALTestSupport
import Testing

@testable import NALCore

@Suite("TransportContext")
struct TransportContextTests {
    @Test("another attempt keeps everything but the wait at the entrance, which only the same attempt keeps")
    func forAttemptKeepsTheWaitForTheSameAttempt() {
        let context = TransportContext(endpoint: TestEndpoint(), deadline: .now + .seconds(9), idleTimeout: 7)
            .waited(.milliseconds(1500))
        let same = context.forAttempt(1)
        #expect(same.waitedAtEntrance == .milliseconds(1500))
        #expect(same.attempt == 1 && same.idleTimeout == 7 && same.deadline == context.deadline)
        // A retry waits afresh: the first attempt's wait at the entrance is not its own.
        let retry = context.forAttempt(2)
        #expect(retry.waitedAtEntrance == nil)
        #expect(retry.attempt == 2 && retry.idleTimeout == 7 && retry.deadline == context.deadline)
    }
}
