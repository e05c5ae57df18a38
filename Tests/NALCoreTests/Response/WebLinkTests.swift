import Foundation
import NALCore
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Link headers (RFC 8288)")
struct WebLinkTests {
    @Test("GitHub's pagination: each link with its relations, quoted or not, resolved against the response")
    func pagination() throws {
        let header =
            #"<https://api.github.com/user/repos?page=3&per_page=100>; rel="next", "#
            + #"</user/repos?page=50&per_page=100>; rel="last", <https://x.example/a,b>; rel="prev first"; "#
            + #"title="a, b; c""#
        let links = WebLink.links(in: header)
        #expect(links.map(\.relations) == [["next"], ["last"], ["prev", "first"]])
        #expect(links[2].target == "https://x.example/a,b" && links[2].parameters["title"] == "a, b; c")
        let url = try #require(URL(string: "https://api.github.com/user/repos?page=2"))
        let http = try #require(
            HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: ["Link": header]))
        let response = Response(
            request: URLRequest(url: url), httpResponse: http, data: Data(),
            timing: ResponseTiming(start: Date(), duration: .zero))
        #expect(response.link("NEXT")?.absoluteString == "https://api.github.com/user/repos?page=3&per_page=100")
        #expect(response.link("last")?.absoluteString == "https://api.github.com/user/repos?page=50&per_page=100")
        #expect(response.link("first")?.absoluteString == "https://x.example/a,b")
        #expect(response.link("missing") == nil)
    }

    @Test(
        "broken headers give what can be read, never a trap",
        arguments: ["", "<", "<a", ">;rel=next", "<a>;;;=", "<a>; rel=\"unterminated", "<a>; rel", ",,,<b>"])
    func broken(header: String) {
        _ = WebLink.links(in: header)
    }
}
