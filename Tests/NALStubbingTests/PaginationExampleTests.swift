import Foundation
import NALCore
import NALMiddleware
import NALStubbing
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Docs: begin pagination
/// Every item of a paginated list, following `Link: <…>; rel="next"` (GitHub's
/// pagination) page after page. Each page keeps the first page's target, so the
/// middleware that authorised it (an access token) authorises the next ones too,
/// while they stay on its origin.
func allPages<Item: Decodable>(
    of first: Endpoint, as item: Item.Type, with client: Client<Endpoint>,
    maximumPages: Int = 100
) async throws -> [Item] {
    var items: [Item] = []
    var next: Endpoint? = first
    for _ in 0..<maximumPages {
        guard let page = next else { break }
        let response = try await client.request(page)
        items += try response.decode([Item].self)
        // resolved against the page's URL; nil on the last page
        next = response.link("next").map { page.replacing(url: $0) }
    }
    return items
}
// Docs: end pagination

@Suite("The pagination example")
struct PaginationExampleTests {
    @Test("three pages joined by Link headers, relative and absolute, are read in order; the last has no next")
    func followsNext() async throws {
        let server = StubServer()
        server.stub(
            .path("/repos") && .query(["page": "1"]),
            response: .json([1, 2], headers: ["Link": #"</repos?page=2>; rel="next", </repos?page=3>; rel="last""#]))
        server.stub(
            .path("/repos") && .query(["page": "2"]),
            response: .json(
                [3],
                headers: [
                    "Link": #"<https://api.example.com/repos?page=3>; rel="next last", </repos?page=1>; rel=prev"#
                ]))
        server.stub(.path("/repos") && .query(["page": "3"]), response: .json([4, 5]))
        let client = Client<Endpoint>(transport: URLSessionTransport(configuration: server.sessionConfiguration))
        let first = Endpoint(url: try #require(URL(string: "https://api.example.com/repos?page=1")))
        #expect(try await allPages(of: first, as: Int.self, with: client) == [1, 2, 3, 4, 5])

        // Docs: begin web-links
        let response = try await client.request("https://api.example.com/repos?page=2")
        let last = response.link("last")  // https://api.example.com/repos?page=3
        let relations = response.links.map(\.relations)  // [["next", "last"], ["prev"]]
        // Docs: end web-links
        #expect(last?.absoluteString == "https://api.example.com/repos?page=3")
        #expect(relations == [["next", "last"], ["prev"]])
    }

    @Test("a server whose next page is itself cannot keep the loop going past its bound")
    func boundedLoop() async throws {
        let server = StubServer()
        server.stub(.path("/loop"), response: .json([0], headers: ["Link": #"</loop>; rel="next""#]))
        let client = Client<Endpoint>(transport: URLSessionTransport(configuration: server.sessionConfiguration))
        let first = Endpoint(url: try #require(URL(string: "https://api.example.com/loop")))
        #expect(try await allPages(of: first, as: Int.self, with: client, maximumPages: 4).count == 4)
    }

    /// A service whose repositories need an access token.
    struct Repositories: RemoteService, AccessTokenAuthorizable {
        var baseURL: URL { URL(string: "https://api.example.com") ?? URL(fileURLWithPath: "/") }
        var path: String { "user/repos" }
        var method: HTTPMethod { .get }
        var requestType: RequestType { .parameters(["page": 1], encoding: URLEncoding.queryString) }
        var accessTokenType: AccessTokenType { .bearer }
    }

    @Test("every page of an authorised list carries the token; a next link to another origin does not")
    func tokenFollowsThePagesOnItsOrigin() async throws {
        let server = StubServer()
        server.stub(
            .path("/user/repos") && .query(["page": "1"]),
            response: .json([1], headers: ["Link": #"</user/repos?page=2>; rel="next""#]))
        server.stub(
            .path("/user/repos") && .query(["page": "2"]),
            response: .json([2], headers: ["Link": #"<https://elsewhere.example.net/repos?page=3>; rel="next""#]))
        server.stub(.host("elsewhere.example.net"), response: .json([3]))
        let client = Client<Endpoint>(
            middleware: [AccessTokenMiddleware(token: { _ in "t0k" })],
            transport: URLSessionTransport(configuration: server.sessionConfiguration))
        let items = try await allPages(of: Endpoint(Repositories()), as: Int.self, with: client)
        #expect(items == [1, 2, 3])
        let sent = server.requests.map { request in
            (request.url.host ?? "", request.headers.first { $0.key.lowercased() == "authorization" }?.value)
        }
        #expect(sent.map(\.0) == ["api.example.com", "api.example.com", "elsewhere.example.net"])
        #expect(sent.map(\.1) == ["Bearer t0k", "Bearer t0k", nil])
        // Each next page is sent as its link says, without the first page's parameters added again.
        #expect(
            server.requests.map(\.url.absoluteString) == [
                "https://api.example.com/user/repos?page=1", "https://api.example.com/user/repos?page=2",
                "https://elsewhere.example.net/repos?page=3",
            ])
    }
}
