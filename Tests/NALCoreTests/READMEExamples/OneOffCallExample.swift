import Foundation
import NALCore
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The articles' one-off call, compiled verbatim; `oneOffExampleRuns` makes the same calls against the local
/// httpbin.
func oneOffCallExample() async throws {
    // Docs: begin one-off-call
    let client = Client<Endpoint>()
    let zen = try await client.request("https://api.github.com/zen").string()
    let repositories = try await client.request(
        "https://api.github.com/search/repositories?q=swift+nio", as: [Repository].self,
        atKeyPath: "items")
    let created = try await client.request(
        "https://api.github.com/repos/apple/swift-nio/issues", method: .post,
        requestType: .jsonEncodable(NewIssue(title: "Found a bug", labels: ["bug"])),
        headers: ["Authorization": "Bearer t0ken"])
    // Docs: end one-off-call
    // Docs: begin multi-target
    let sameClient = try await client.request(Endpoint(GitHub.zen)).string()
    // Docs: end multi-target
    _ = (zen, repositories, created, sameClient)
}

@Suite("The one-off call example", .enabled(if: HTTPBin.url != nil, HTTPBin.skipReason))
struct OneOffCallExampleTests {
    @Test("the example's calls, against httpbin, over the transport under test")
    func oneOffExampleRuns() async throws {
        let base = try #require(HTTPBin.url).absoluteString
        let client = Client<Endpoint>(transport: TestTransports.make())
        #expect(try await client.request("\(base)/base64/emVu").string() == "zen")
        struct Echo: Decodable { var json: [String: ParameterValue]? }
        let created = try await client.request(
            "\(base)/post", method: .post,
            requestType: .jsonEncodable(NewIssue(title: "Found a bug", labels: ["bug"])),
            headers: ["Authorization": "Bearer t0ken"])
        let echo = try created.decode(Echo.self)
        #expect(echo.json?["title"] == "Found a bug")
        #expect(created.request.value(forHTTPHeaderField: "Authorization") == "Bearer t0ken")
    }
}
