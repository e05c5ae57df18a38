import Foundation
import NALCore
import NALStubbing
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Docs: begin fixtures-location
/// The fixture files next to this test file: `Tests/NALStubbingTests/Fixtures`, found
/// from the source file's path.
let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Fixtures")
// Docs: end fixtures-location

@Suite("README fixture examples")
struct READMEFixtureExamples {
    // Docs: begin fixtures-tails
    @Test func profileFromTailFiles() async throws {
        let server = StubServer()
        try server.loadTails(
            from: fixtures.appendingPathComponent("tails/github"),
            placeholders: ["login": "octocat"])
        let client = Client<GitHub>(
            transport: URLSessionTransport(configuration: server.sessionConfiguration))
        let profile = try await client.request(.userProfile("octocat"), as: Profile.self)
        #expect(profile == Profile(login: "octocat", id: 583231))
    }
    // Docs: end fixtures-tails

    // Docs: begin fixtures-cassette
    @Test func zenFromACassette() async throws {
        // Recorded once against the real API; replayed from then on, offline. Delete the
        // file to record again.
        let cassette = fixtures.appendingPathComponent("cassettes/github.har")
        let client = Client<GitHub>(
            transport: RecordingTransport(cassette: cassette, mode: .once))
        #expect(try await client.request(.zen).string() == "Keep it logically awesome.")
    }
    // Docs: end fixtures-cassette

    @Test("the articles' fixtures folder is the suite's")
    func fixturesFolder() {
        #expect(fixtures.standardizedFileURL == Fixtures.root.standardizedFileURL)
    }
}
