import Foundation
import NALCore
import NALStubbing
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The README's fixture directory: `Tests/NALStubbingTests/Fixtures`.
let fixtures = Fixtures.root

@Suite("README fixture examples")
struct READMEFixtureExamples {
    // Docs: begin fixtures-tails
    @Test func profileFromTailFiles() async throws {
        let server = StubServer()
        try server.loadTails(from: fixtures.appendingPathComponent("tails/github"), placeholders: ["login": "octocat"])
        let client = Client<GitHub>(transport: URLSessionTransport(configuration: server.sessionConfiguration))
        let profile = try await client.request(.userProfile("octocat"), as: Profile.self)
        #expect(profile == Profile(login: "octocat", id: 583231))
    }
    // Docs: end fixtures-tails

    // Docs: begin fixtures-cassette
    @Test func zenFromACassette() async throws {
        // Recorded once against the real API; replayed from then on, offline. Delete the file to record again.
        let cassette = fixtures.appendingPathComponent("cassettes/github.har")
        let client = Client<GitHub>(transport: RecordingTransport(cassette: cassette, mode: .once))
        #expect(try await client.request(.zen).string() == "Keep it logically awesome.")
    }
    // Docs: end fixtures-cassette
}
