import Foundation
import NALCore
import NALStubbing
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The short forms Mocker users reach for: headers on `.json` and `.string` (and so `dataType`), and
/// `fileExtensions`.
@Suite("Mocker's short forms")
struct MockerShortFormsTests {
    static func request(_ path: String) throws -> RecordedRequest {
        RecordedRequest(method: "GET", url: try #require(URL(string: "https://api.example.com" + path)))
    }

    @Test("json and string take headers; a Content-Type among them, in any letter case, replaces the default")
    func headersOnShortForms() async throws {
        let json = StubResponse.json(["a": 1], headers: ["X-RateLimit-Remaining": "9"])
        #expect(json.headers == ["Content-Type": "application/json", "X-RateLimit-Remaining": "9"])
        let vendor = StubResponse.json(["a": 1], status: 201, headers: ["content-type": "application/vnd.api+json"])
        #expect(vendor.headers == ["content-type": "application/vnd.api+json"])
        #expect(vendor.status == 201)
        let html = StubResponse.string("<p>hi</p>", headers: ["Content-Type": "text/html"])
        #expect(html.headers == ["Content-Type": "text/html"])
        #expect(StubResponse.string("plain").headers == ["Content-Type": "text/plain; charset=utf-8"])

        let server = StubServer()
        server.stub(.path("/page"), response: html)
        let client = Client<Endpoint>(transport: URLSessionTransport(configuration: server.sessionConfiguration))
        let response = try await client.request("https://api.example.com/page")
        #expect(response.headers["Content-Type"] == "text/html")
        #expect(response.string() == "<p>hi</p>")
    }

    @Test("a StubTransport of one service answers an Endpoint that wraps its target as that target (MultiTarget)")
    func stubAnswersWrappedTarget() async throws {
        let stubs = StubTransport<GitHub>(.custom { target in .string("custom \(target.path)") })
        let client = Client<Endpoint>(transport: stubs)
        #expect(try await client.request(Endpoint(GitHub.zen)).string() == "custom zen")
    }

    @Test("fileExtension matches the last segment's extension in any letter case, and nothing else")
    func fileExtension() throws {
        let images = RequestMatcher.fileExtension("png", "jpg")
        for path in ["/a/b.png", "/x.JPG", "/x.png?size=2", "/deep/er/photo.Png"] {
            #expect(images.matches(try Self.request(path)), "\(path)")
        }
        for path in ["/png", "/x.png/more", "/x.pngx", "/x.gif", "/xpng", "/"] {
            #expect(!images.matches(try Self.request(path)), "\(path)")
        }
        #expect(!RequestMatcher.fileExtension().matches(try Self.request("/x.png")))
        // Mocker's own spelling with the dot works; an empty extension matches nothing, not every path ending in ".".
        #expect(RequestMatcher.fileExtension(".png").matches(try Self.request("/x.png")))
        #expect(!RequestMatcher.fileExtension("").matches(try Self.request("/x.")))
        #expect(!RequestMatcher.fileExtension(".").matches(try Self.request("/x.")))
        // A dot in an extension is a dot, not any character.
        #expect(RequestMatcher.fileExtension("tar.gz").matches(try Self.request("/a.tar.gz")))
        #expect(!RequestMatcher.fileExtension("tar.gz").matches(try Self.request("/a.tarxgz")))
    }
}
