import Foundation
import NALCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A response kept ready in memory, shared by NAL's transport and the hand-written baseline.
enum InstantResponder {
    static let body = Data(
        #"{"login":"octocat","id":583231,"name":"The Octocat","public_repos":8,"site_admin":false}"#.utf8)
    static let url = URL(string: "https://api.example.com/v1/users/octocat") ?? URL(fileURLWithPath: "/")
    static let response = HTTPURLResponse(
        url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": "application/json"])

    static func respond(to request: URLRequest) async throws(URLError) -> (Data, HTTPURLResponse) {
        guard let response else { throw URLError(.badServerResponse) }
        return (body, response)
    }
}

struct InstantTransport: Transport {
    func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
        let (data, http): (Data, HTTPURLResponse)
        do { (data, http) = try await InstantResponder.respond(to: request) } catch { throw .transport(error) }
        return Response(
            request: request, httpResponse: http, data: data, timing: ResponseTiming(start: Date(), duration: .zero))
    }
}

struct GitHubUser: Decodable, Sendable {
    var login: String
    var id: Int
    var name: String
    var publicRepos: Int
    var siteAdmin: Bool

    enum CodingKeys: String, CodingKey {
        case login, id, name
        case publicRepos = "public_repos"
        case siteAdmin = "site_admin"
    }
}

enum UserAPI: RemoteService {
    case user(String)
    var baseURL: URL { BenchAPI.base }
    var path: String {
        switch self {
        case .user(let login): "users/\(pathSegment: login)"
        }
    }
    var method: HTTPMethod { .get }
    var requestType: RequestType { .plain }
}

enum ClientBench {
    static let client = Client<UserAPI>(transport: InstantTransport())
    static let decoder = JSONDecoder()

    /// The same job by hand: build the request, call the responder, check the status, decode.
    static func baseline() async throws -> GitHubUser {
        guard let url = URL(string: "https://api.example.com/v1/users/octocat") else { throw URLError(.badURL) }
        let request = URLRequest(url: url)
        let (data, response) = try await InstantResponder.respond(to: request)
        guard (200..<300).contains(response.statusCode) else { throw URLError(.badServerResponse) }
        return try decoder.decode(GitHubUser.self, from: data)
    }
}

extension Benchmark {
    static let clientScenarios: [Benchmark] = [
        Benchmark(
            "client.roundtrip",
            measures:
                "A whole Client call (preparation, transport, validation, decoding) over a transport that answers from memory.",
            comparedWith: ["baseline.client.roundtrip"]
        ) { n in
            for _ in 0..<n {
                blackHole(
                    try await ClientBench.client.request(
                        .user("octocat"), as: GitHubUser.self, using: ClientBench.decoder))
            }
        },
        .reference(
            "baseline.client.roundtrip",
            measures: "The same request, responder, status check and decoding, written by hand."
        ) { n in
            for _ in 0..<n { blackHole(try await ClientBench.baseline()) }
        },
    ]
}
