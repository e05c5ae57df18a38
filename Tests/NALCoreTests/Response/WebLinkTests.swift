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

    @Test("a token value ends at its comma, quoted values unescape, the first of a repeated parameter wins")
    func parameters() {
        let header = #"<a>; rel=next, <b>; REL="Prev Last"; title="say \"hi\" \\ ok"; title=second"#
        #expect(
            WebLink.links(in: header) == [
                WebLink(target: "a", relations: ["next"], parameters: ["rel": "next"]),
                WebLink(
                    target: "b", relations: ["prev", "last"],
                    parameters: ["rel": "Prev Last", "title": #"say "hi" \ ok"#]),
            ])
    }

    @Test("after a redirect, a relative target resolves against the URL that answered, not the one asked for")
    func relativeAfterRedirect() throws {
        let asked = try #require(URL(string: "https://api.example.com/old/list"))
        let answered = try #require(URL(string: "https://api.example.com/new/list"))
        let http = try #require(
            HTTPURLResponse(
                url: answered, statusCode: 200, httpVersion: nil, headerFields: ["Link": #"<page/2>; rel="Next""#]))
        let response = Response(
            request: URLRequest(url: asked), httpResponse: http, data: Data(),
            timing: ResponseTiming(start: Date(), duration: .zero))
        #expect(response.link("next")?.absoluteString == "https://api.example.com/new/page/2")
    }

    @Test(
        "broken headers give what can be read, never a trap",
        arguments: ["", "<", "<a", ">;rel=next", "<a>;;;=", "<a>; rel=\"unterminated", "<a>; rel", ",,,<b>"])
    func broken(header: String) {
        _ = WebLink.links(in: header)
    }
}
