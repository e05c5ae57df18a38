import Foundation
import NALCore
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("A one-off call: Client<Endpoint> and a URL")
struct OneOffCallTests {
    struct Echo: Decodable, Equatable {
        var url: String
        var args: [String: String]
    }

    @Test("the URL's query is kept and the parameters follow it; method and headers are sent as given")
    func sendsWhatItIsGiven() async throws {
        let transport = MemoryTransport(body: Data("{}".utf8))
        let client = Client<Endpoint>(transport: transport)
        let response = try await client.request(
            "https://api.example.com/search?x=1", method: .post,
            requestType: .parameters(["y": 2], encoding: URLEncoding.queryString), headers: ["X-Trace": "one-off"])
        #expect(response.statusCode == 200)
        let sent = try #require(transport.requests.first)
        #expect(sent.url?.absoluteString == "https://api.example.com/search?x=1&y=2")
        #expect(sent.httpMethod == "POST")
        #expect(sent.value(forHTTPHeaderField: "X-Trace") == "one-off")
    }

    @Test("validation applies: a 404 throws with the response; .none accepts it")
    func validates() async throws {
        let client = Client<Endpoint>(transport: MemoryTransport(status: 404))
        let error = await #expect(throws: NALError.self) { try await client.request("https://api.example.com/gone") }
        #expect(error?.response?.statusCode == 404)
        let accepted = try await client.request("https://api.example.com/gone", validation: .none)
        #expect(accepted.statusCode == 404)
    }

    @Test(
        "text that is no http URL is a typed invalidRequest error, before anything is sent",
        arguments: ["", "/relative/path", "https://", "https://exa mple.com/"])
    func refusesBadURLs(text: String) async throws {
        let transport = MemoryTransport()
        let client = Client<Endpoint>(transport: transport)
        let error = await #expect(throws: NALError.self) { try await client.request(text) }
        guard case .invalidRequest = error else {
            Issue.record("\(text): \(String(describing: error))")
            return
        }
        #expect(transport.requests.isEmpty)
    }

    @Test("a password in the URL never reaches an error's text")
    func redactsErrors() async throws {
        let client = Client<Endpoint>(transport: MemoryTransport(status: 500))
        let error = await #expect(throws: NALError.self) {
            try await client.request("https://ada:hunter2@api.example.com/x?access_token=tok-9")
        }
        let text = "\(String(describing: error)) \(error?.localizedDescription ?? "")"
        #expect(!text.contains("hunter2"))
        #expect(!text.contains("tok-9"))
    }

    @Test("the total timeout applies to a one-off call as to any other")
    func timesOut() async throws {
        let client = Client<Endpoint>(transport: MemoryTransport(delay: .seconds(5)))
        let error = await #expect(throws: NALError.self) {
            try await client.request(
                "https://api.example.com/slow", options: RequestOptions(totalTimeout: 0.2))
        }
        guard case .timedOut(let failure) = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(failure.limit == .total)
    }

    @Test("against httpbin: decoded in one line, over the transport under test", .enabled(if: HTTPBin.url != nil))
    func againstHTTPBin() async throws {
        let base = try #require(HTTPBin.url)
        let client = Client<Endpoint>(transport: TestTransports.make())
        let echo = try await client.request("\(base.absoluteString)/get?q=one-off", as: Echo.self)
        #expect(echo.args == ["q": "one-off"])
    }

    @Test("Endpoint(target) keeps the target, through copies; originalTarget looks through it")
    func keepsTheTarget() throws {
        let original = TestEndpoint(path: "first")
        let copy = Endpoint(Endpoint(original))
        #expect((copy.target as? TestEndpoint)?.path == "first")
        #expect((copy.originalTarget as? TestEndpoint)?.path == "first")
        #expect((original.originalTarget as? TestEndpoint)?.path == "first")
        let plain = Endpoint(url: try #require(URL(string: "https://api.example.com/x")))
        #expect(plain.target == nil)
        #expect(plain.originalTarget is Endpoint)
        #expect(Endpoint(plain).target == nil)
        // Another path on the same origin keeps the target; another port, host or scheme forgets it.
        var moved = Endpoint(original)
        moved.path = "elsewhere"
        moved.baseURL = try #require(URL(string: "https://API.example.com/v2"))
        #expect(moved.target != nil)
        moved.baseURL = try #require(URL(string: "https://api.example.com:8443/v1"))
        #expect(moved.target == nil)
    }
}
