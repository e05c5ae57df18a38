import Foundation
import NALCore
import NALStubbing
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Docs: begin pagination
/// Every item of a paginated list, following `Link: <…>; rel="next"` (GitHub's
/// pagination) page after page.
func allPages<Item: Decodable>(
    from first: URL, as item: Item.Type, with client: Client<Endpoint>,
    maximumPages: Int = 100
) async throws -> [Item] {
    var items: [Item] = []
    var next: URL? = first
    for _ in 0..<maximumPages {
        guard let page = next else { break }
        let response = try await client.request(Endpoint(url: page))
        items += try response.decode([Item].self)
        // resolved against the page's URL; nil on the last page
        next = response.link("next")
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
        let first = try #require(URL(string: "https://api.example.com/repos?page=1"))
        #expect(try await allPages(from: first, as: Int.self, with: client) == [1, 2, 3, 4, 5])

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
        let first = try #require(URL(string: "https://api.example.com/loop"))
        #expect(try await allPages(from: first, as: Int.self, with: client, maximumPages: 4).count == 4)
    }
}
