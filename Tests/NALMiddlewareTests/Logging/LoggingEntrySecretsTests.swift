import Foundation
import NALCore
import NALLogging
import NALMiddleware
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Whether any secret reaches a `LoggingMiddleware.Entry`, and so a custom formatter, unredacted (issue 39). The
/// formatter's documentation says "secrets are redacted before it sees them".
@Suite("LoggingMiddleware.Entry holds no secret")
struct LoggingEntrySecretsTests {
    static let secrets = ["hunter2", "abc.def", "tok-9", "sess-77", "ada-pw"]

    static let endpoint = TestEndpoint(
        baseURL: URL(string: "https://ada:ada-pw@api.example.com/v1?access_token=tok-9") ?? TestEndpoint.exampleBase,
        path: "login", method: .post, requestType: .data(Data(#"{"password":"hunter2"}"#.utf8)),
        headers: ["Authorization": "Bearer abc.def", "Cookie": "session=sess-77", "Content-Type": "application/json"])

    @Test("a formatter that prints its whole entry (\"\\(entry)\", dump) prints no secret")
    func interpolatedEntryHasNoSecret() async throws {
        let logging = LoggingMiddleware(options: [.headers, .bodies, .curl, .timing]) { entry in
            var dumped = ""
            dump(entry, to: &dumped)
            return "\(entry) | \(dumped)"
        }
        try await LogCapture.capture("dev.nal=notice,*=off") { sink in
            _ = try? await Client<TestEndpoint>(
                middleware: [logging], transport: MemoryTransport(body: Data("{}".utf8))
            ).request(Self.endpoint)
            let logged =
                sink.messages(subsystem: "dev.nal", category: "request")
                + sink.messages(subsystem: "dev.nal", category: "response")
            #expect(!logged.isEmpty)
            for secret in Self.secrets {
                #expect(!logged.joined().contains(secret), "\(secret) reached the log through Entry")
            }
        }
    }

    @Test("Entry names its target without the payload: nothing of the caller's value reaches a formatter raw")
    func targetIsANameOnly() async throws {
        let seen = Locked<[LoggingMiddleware.Entry]>([])
        let logging = LoggingMiddleware(options: [.headers]) { entry in
            seen.withLock { $0.append(entry) }
            return "x"
        }
        try await LogCapture.capture("dev.nal=notice,*=off") { _ in
            _ = try? await Client<TestEndpoint>(
                middleware: [logging], transport: MemoryTransport(body: Data("{}".utf8))
            ).request(Self.endpoint)
        }
        let entry = try #require(seen.withLock { $0.first })
        #expect(entry.target == "TestEndpoint")
        #expect(entry.headers.first { $0.name == "Authorization" }?.value == "Bearer <redacted>")
    }
}
