import Foundation
import NALCore
import NALTestSupport
import Testing

@Suite("RemoteService.loggableName")
struct LoggableNameTests {
    @Test("an enum case is Type.case without its payload; a struct is its type; a wrapped target is the wrapper's")
    func names() {
        #expect(GitHub.userProfile("s3cret-login").loggableName == "GitHub.userProfile")
        #expect(GitHub.zen.loggableName == "GitHub.zen")
        #expect(TestEndpoint().loggableName == "TestEndpoint")
        #expect(Endpoint(GitHub.zen).loggableName == "Endpoint")
        #expect(Endpoint(GitHub.zen).originalTarget.loggableName == "GitHub.zen")
    }
}
