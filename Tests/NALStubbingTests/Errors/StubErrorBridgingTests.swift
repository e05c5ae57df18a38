import Foundation
import NALStubbing
import Testing

/// The stub errors print their sentence through `localizedDescription` and a bridged `NSError` (Linux), as NAL's
/// other errors do.
@Suite("Stub errors print their sentence through Foundation's routes")
struct StubErrorBridgingTests {
    @Test("StubServerError, StubListenerError and FixtureError")
    func stubErrors() {
        let errors: [any Error & CustomStringConvertible] = [
            StubServerError.unusedStubs(["GET /a"]),
            StubListenerError.addressInUse(host: "127.0.0.1", port: 8080),
            FixtureError(file: URL(fileURLWithPath: "/tmp/x.tail"), line: 3, message: "no status line"),
        ]
        for error in errors {
            let bridged: any Error = error
            #expect(bridged.localizedDescription == error.description)
            #expect((bridged as any CustomStringConvertible).description.contains("\"\(error.description)\""))
        }
    }
}
