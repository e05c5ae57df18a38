import Foundation
import NALCore
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Hostile URLs given to the one-off call `Client<Endpoint>.request(_:)` (issue 39).
@Suite("A one-off call with hostile URLs")
struct OneOffCallHostileURLTests {
    @Test("a base URL with a query and a fragment, plus parameters: the parameters go into the query, not the fragment")
    func queryFragmentAndParameters() async throws {
        let transport = MemoryTransport(body: Data("{}".utf8))
        let client = Client<Endpoint>(transport: transport)
        _ = try await client.request(
            "https://api.example.com/p?a=1#frag",
            requestType: .parameters(["b": "2"], encoding: URLEncoding.queryString))
        let sent = try #require(transport.requests.first?.url)
        let components = try #require(URLComponents(url: sent, resolvingAgainstBaseURL: false))
        print("HOSTILE sent:", sent.absoluteString)
        #expect(components.queryItems?.map(\.name) == ["a", "b"], "\(sent.absoluteString)")
        #expect(components.fragment?.contains("b=2") != true, "\(sent.absoluteString)")
    }

    @Test(
        "odd but parseable URLs: each is sent or refused with a typed error, never a trap",
        arguments: [
            "https://bücher.example/x", "https://xn--bcher-kva.example/x", "https://api.example.com/a%2F..%2Fb",
            "https://api.example.com/%00", "HTTPS://API.EXAMPLE.COM/", "https://api.example.com:99999/",
            "https://[::1]/x", "file:///etc/passwd", "ftp://api.example.com/", "javascript:alert(1)",
            "https://api.example.com/" + String(repeating: "a", count: 200_000),
            "https://u:p@:80/", "http://api.example.com?#", "https://api.example.com/?q=%ZZ",
        ])
    func oddURLs(text: String) async throws {
        let transport = MemoryTransport(body: Data("{}".utf8))
        let client = Client<Endpoint>(transport: transport)
        do {
            let response = try await client.request(text)
            print(
                "HOSTILE \(text.prefix(60)) -> \(response.statusCode) \(transport.requests.first?.url?.absoluteString.prefix(80) ?? "-")"
            )
            let scheme = transport.requests.first?.url?.scheme?.lowercased()
            #expect(scheme == "http" || scheme == "https", "\(text.prefix(60)) was sent as \(scheme ?? "nil")")
        } catch {
            print("HOSTILE \(text.prefix(60)) -> \(error)".prefix(300))
            #expect(transport.requests.isEmpty)
        }
    }

    @Test("credentials and tokens of a one-off URL never reach a refused URL's error text")
    func refusedURLRedacted() async throws {
        let client = Client<Endpoint>(transport: MemoryTransport())
        for text in [
            "https://ada:hunter2@exa mple.com/?access_token=tok-9", "ftp://ada:hunter2@example.com/?access_token=tok-9",
            "https://ada:hunter2@/x?access_token=tok-9",
        ] {
            let error = await #expect(throws: NALError.self) { try await client.request(text) }
            let shown = "\(String(describing: error)) \(error?.localizedDescription ?? "") \(String(reflecting: error))"
            print("HOSTILE refused:", shown)
            #expect(!shown.contains("hunter2"), "\(shown)")
            #expect(!shown.contains("tok-9"), "\(shown)")
        }
    }
}
