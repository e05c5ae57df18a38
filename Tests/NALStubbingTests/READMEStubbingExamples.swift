import Foundation
import NALCore
import NALMiddleware
import NALStubbing
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A stand-in for the README's `GitHub` endpoint, with sample data, so that the stubbing examples compile here.
// Docs: begin stubbing-service
enum GitHub: RemoteService {
    case zen, userProfile(String)
    var baseURL: URL {
        URL(string: "https://api.github.com") ?? URL(fileURLWithPath: "/")
    }
    var path: String {
        switch self {
        case .zen: "zen"
        case .userProfile(let login): "users/\(pathSegment: login)"
        }
    }
    var method: HTTPMethod { .get }
    var requestType: RequestType { .plain }
    var testData: Data {
        switch self {
        case .zen: Data("Keep it logically awesome.".utf8)
        case .userProfile(let login): Data(#"{"login":"\#(login)","id":1}"#.utf8)
        }
    }
}

struct Profile: Codable, Sendable, Equatable {
    var login: String
    var id: Int
}
// Docs: end stubbing-service

@Suite("README stubbing examples")
struct READMEStubbingExamples {
    // Docs: begin stubbing-behaviours
    @Test func profileFromSampleData() async throws {
        // each target's testData, status 200
        let client = Client<GitHub>(stubbing: .immediate)
        let profile = try await client.request(.userProfile("octocat"), as: Profile.self)
        #expect(profile.login == "octocat")
    }

    @Test func missingUserIsAnError() async throws {
        let client = Client<GitHub>(
            stubbing: .custom { target in
                switch target {
                case .userProfile("ghost"): .string("Not Found", status: 404)
                default: .string("ok")
                }
            })
        let error = await #expect(throws: NALError.self) {
            try await client.request(.userProfile("ghost"))
        }
        #expect(error?.response?.statusCode == 404)
    }
    // Docs: end stubbing-behaviours

    @Test("shared settings: the stubbed client is set up as the live one")
    func sharedSettings() async throws {
        // Docs: begin shared-settings
        let settings = Client<GitHub>.Settings(
            deduplicatesRequests: true, deduplicatedMethods: [.get, .put])
        let live = Client<GitHub>(transport: URLSessionTransport(), settings: settings)
        let stubbed = Client<GitHub>(stubbing: .immediate, settings: settings)
        // Docs: end shared-settings
        #expect(live.settings.deduplicatedMethods == stubbed.settings.deduplicatedMethods)
        #expect(try await stubbed.request(.zen).string() == "Keep it logically awesome.")
    }

    // Docs: begin stubbing-registration
    @Test func retriesABusyServer() async throws {
        let stubs = StubTransport<GitHub>(.immediate)
        stubs.stub(
            .zen, with: .string("busy", status: 503),
            .string("Half measures are as bad as nothing at all."))
        stubs.stub(.userProfile("ada"), with: .json(Profile(login: "ada", id: 7)))

        let client = Client<GitHub>(
            middleware: [RetryMiddleware(baseDelay: .milliseconds(1))], transport: stubs)
        #expect(
            try await client.request(.zen).string()
                == "Half measures are as bad as nothing at all.")
        #expect(try await client.request(.userProfile("ada"), as: Profile.self).id == 7)
        #expect(stubs.requests.count == 3)  // 503, the retry, the profile
    }
    // Docs: end stubbing-registration

    // Docs: begin stubbing-server
    @Test func serverStubsEveryURLSessionClient() async throws {
        // one per test: parallel tests never see each other's stubs
        let server = StubServer()
        server.stub(
            .method(.get) && .path("/users/{login}"),
            response: .json(Profile(login: "octocat", id: 1)))
        server.stub(
            .path("/zen"),
            responses: [
                .networkError(.notConnectedToInternet), .string("Speak like a human."),
            ])

        let client = Client<GitHub>(
            transport: URLSessionTransport(configuration: server.sessionConfiguration))
        #expect(
            try await client.request(.userProfile("octocat"), as: Profile.self).login
                == "octocat")
        await #expect(throws: NALError.self) { try await client.request(.zen) }
        #expect(try await client.request(.zen).string() == "Speak like a human.")

        #expect(server.requests(matching: .path("/zen")).count == 2)
        try server.verifyAllStubsUsed()
    }
    // Docs: end stubbing-server

    // Docs: begin stubbing-handler
    @Test func handlerEchoesTheRequest() async throws {
        let server = StubServer()
        server.stub(.method(.post) && .hasHeader("Authorization")) { request in
            .string("you sent \(request.httpBody?.count ?? 0) bytes", status: 201)
        }
        var request = URLRequest(
            url: try #require(URL(string: "https://example.com/upload")))
        request.httpMethod = "POST"
        request.setValue("Bearer t0ken", forHTTPHeaderField: "Authorization")
        request.httpBody = Data("hello".utf8)

        // any URLSession client
        let session = URLSession(configuration: server.sessionConfiguration)
        let (data, response) = try await session.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 201)
        #expect(String(decoding: data, as: UTF8.self) == "you sent 5 bytes")
    }
    // Docs: end stubbing-handler

    // Docs: begin stubbing-unmatched
    @Test func unmatchedRequestsExplainThemselves() async throws {
        let server = StubServer()
        server.stub(
            .path("/users/{login}") && .header("X-Api-Key", "s3cret"),
            response: .string("ok"))

        let session = URLSession(configuration: server.sessionConfiguration)
        let url = try #require(URL(string: "https://api.github.com/users/octocat"))
        let error = await #expect(throws: URLError.self) {
            try await session.data(from: url)
        }
        #expect(error?.code == .resourceUnavailable)
        #expect(
            error?.localizedDescription == """
                No stub matches GET https://api.github.com/users/octocat. Closest stubs:
                  1. path /users/{login} && header X-Api-Key: <redacted>: path /users/{login} matched; header X-Api-Key missing
                """)
    }
    // Docs: end stubbing-unmatched
}
