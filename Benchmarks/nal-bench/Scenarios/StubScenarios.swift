import Foundation
import NALCore
import NALStubbing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension UserAPI {
    var testData: Data { InstantResponder.body }
}

/// Answers every request with the same ready response, doing nothing else: the floor for URLProtocol stubbing.
final class FixedResponseProtocol: URLProtocol {
    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        guard let url = request.url,
            let response = HTTPURLResponse(
                url: url, statusCode: 200, httpVersion: "HTTP/1.1",
                headerFields: ["Content-Type": "application/json"])
        else {
            client?.urlProtocol(self, didFailWithError: URLError(.badURL))
            return
        }
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: InstantResponder.body)
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}
}

enum StubBench {
    static func server(exactStubs count: Int) -> StubServer {
        let server = StubServer()
        for index in 0..<count {
            _ = server.stub(
                .method(.get) && .host("api.example.com") && .path("/v1/users/user\(index)"),
                response: .string("user \(index)"))
        }
        return server
    }

    static let tenStubs = server(exactStubs: 10)
    static let tenThousandStubs = server(exactStubs: 10_000)
    /// A stub in the middle of the list, so a linear scan would have to pass half of them.
    static let lookupRequest = URLRequest(
        url: URL(string: "https://api.example.com/v1/users/user5") ?? InstantResponder.url)
    static let lookupRequestAmongMany = URLRequest(
        url: URL(string: "https://api.example.com/v1/users/user5000") ?? InstantResponder.url)

    static let transportClient = Client<UserAPI>(transport: StubTransport<UserAPI>(.immediate))

    static let urlProtocolServer: StubServer = {
        let server = StubServer()
        _ = server.stub(
            .method(.get) && .url(InstantResponder.url),
            response: StubResponse(headers: ["Content-Type": "application/json"], body: InstantResponder.body))
        return server
    }()
    static let stubbedSession = URLSession(configuration: urlProtocolServer.sessionConfiguration)
    static let bareSession: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [FixedResponseProtocol.self]
        return URLSession(configuration: configuration)
    }()

    static func fetch(with session: URLSession) async throws -> Data {
        let (data, _) = try await session.data(for: URLRequest(url: InstantResponder.url))
        guard data.count == InstantResponder.body.count else { throw URLError(.badServerResponse) }
        return data
    }
}

extension Benchmark {
    static let stubScenarios: [Benchmark] = [
        Benchmark(
            "stub.lookup",
            measures:
                "Finding one stub among 10,000 exact ones: lookups are indexed, so this stays near the 10-stub reference.",
            comparedWith: ["reference.stub.lookup.10-stubs"]
        ) { n in
            for _ in 0..<n { blackHole(StubBench.tenThousandStubs.hasStub(for: StubBench.lookupRequestAmongMany)) }
        },
        .reference("reference.stub.lookup.10-stubs", measures: "Finding one stub among 10.") { n in
            for _ in 0..<n { blackHole(StubBench.tenStubs.hasStub(for: StubBench.lookupRequest)) }
        },
        Benchmark(
            "stub.transport",
            measures: "A whole Client call answered by StubTransport: what a stubbed unit test pays per call.",
            comparedWith: ["reference.middleware.none"]
        ) { n in
            for _ in 0..<n { blackHole(try await StubBench.transportClient.request(.user("octocat"))) }
        },
        Benchmark(
            "stub.urlprotocol",
            measures:
                "A URLSession request answered by StubServer; gated on what it allocates above a bare URLProtocol.",
            comparedWith: ["reference.stub.urlprotocol.fixed"], gatedAboveReference: true,
            // URLSession's background threads allocate a varying few during a batch, and its timing is the noisiest.
            timeTolerance: 0.5, allocationTolerance: 3
        ) { n in
            for _ in 0..<n { blackHole(try await StubBench.fetch(with: StubBench.stubbedSession)) }
        },
        .reference("reference.stub.urlprotocol.fixed", measures: "A bare URLProtocol that returns a fixed response.") {
            n in
            for _ in 0..<n { blackHole(try await StubBench.fetch(with: StubBench.bareSession)) }
        },
    ]
}
