import Foundation
import NALCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The code below is the README's quick start, verbatim, so that the README cannot drift from the API.

// README: begin endpoint
enum GitHub: RemoteService {
    case zen
    case userProfile(String)
    case search(query: String, page: Int)
    case createIssue(owner: String, repo: String, NewIssue)

    var baseURL: URL { URL(string: "https://api.github.com")! }

    var path: String {
        switch self {
        case .zen: "zen"
        case .userProfile(let login): "users/\(pathSegment: login)"
        case .search: "search/repositories"
        case .createIssue(let owner, let repo, _): "repos/\(pathSegment: owner)/\(pathSegment: repo)/issues"
        }
    }

    var method: HTTPMethod {
        switch self {
        case .createIssue: .post
        default: .get
        }
    }

    var requestType: RequestType {
        switch self {
        case .zen, .userProfile:
            .plain
        case .search(let query, let page):
            .parameters(["q": .string(query), "page": .int(page), "sort": "stars"], encoding: URLEncoding.default)
        case .createIssue(_, _, let issue):
            .jsonEncodable(issue)
        }
    }

    var headers: [String: String]? { ["Accept": "application/vnd.github+json"] }
}

struct NewIssue: Encodable, Sendable {
    var title: String
    var labels: [String]
}
// README: end endpoint

@Suite("README examples")
struct READMEExamplesTests {
    @Test("quick start")
    func quickStart() throws {
        // README: begin usage
        let request = try GitHub.search(query: "swift nio", page: 2).urlRequest()
        // request.url: https://api.github.com/search/repositories?page=2&q=swift%20nio&sort=stars

        let profile = try GitHub.userProfile("a/b?c").urlRequest()
        // profile.url: https://api.github.com/users/a%2Fb%3Fc
        // README: end usage
        #expect(
            request.url?.absoluteString == "https://api.github.com/search/repositories?page=2&q=swift%20nio&sort=stars")
        #expect(profile.url?.absoluteString == "https://api.github.com/users/a%2Fb%3Fc")
        #expect(request.value(forHTTPHeaderField: "Accept") == "application/vnd.github+json")
    }

    @Test("encodings")
    func encodings() throws {
        // README: begin encodings
        let parameters: Parameters = ["ids": [1, 2], "filter": ["lang": "swift"], "exact": true]
        let query = try URLEncoding(arrayEncoding: .noBrackets, boolEncoding: .literal).queryString(parameters)
        // exact=true&filter%5Blang%5D=swift&ids=1&ids=2

        struct Search: Encodable { var perPage = 50; var tags = ["server", "linux"] }
        let form = try URLEncodedFormEncoder(keyEncoding: .convertToSnakeCase).encode(Search())
        // per_page=50&tags%5B%5D=server&tags%5B%5D=linux
        // README: end encodings
        #expect(query == "exact=true&filter%5Blang%5D=swift&ids=1&ids=2")
        #expect(form == "per_page=50&tags%5B%5D=server&tags%5B%5D=linux")
    }

    @Test("errors")
    func errors() {
        // README: begin errors
        struct Traced: RemoteService {
            var baseURL: URL { URL(string: "https://api.example.com")! }
            var path: String { "items" }
            var method: HTTPMethod { .get }
            var requestType: RequestType { .plain }
            var headers: [String: String]? { ["X-Trace": "1\r\nX-Injected: yes"] }
        }
        do {
            _ = try Traced().urlRequest()
        } catch {
            // error is an NALError: .invalidRequest(.invalidHeaderValue(name: "X-Trace", problem: ...))
            // "Invalid request: the value of header 'X-Trace' contains CR (0x0D) at byte offset 1; CR, LF and NUL
            //  are rejected to prevent request smuggling."
        }
        // README: end errors
        #expect(
            invalidRequestReason { try Traced().urlRequest() }
                == .invalidHeaderValue(name: "X-Trace", problem: "contains CR (0x0D) at byte offset 1"))
    }
}

struct Repository: Decodable, Sendable {
    var fullName: String
}

/// The README's Client example, compiled verbatim; `clientExampleRuns` executes the same calls from memory.
func readmeClientExample() async throws {
    // README: begin client
    let client = Client<GitHub>()

    let zen = try await client.request(.zen).string()
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    let repositories = try await client.request(
        .search(query: "swift nio", page: 1), as: [Repository].self, atKeyPath: "items", using: decoder)

    do {
        _ = try await client.request(.userProfile("no-such-user"))
    } catch {
        // error.response?.statusCode == 404: the whole response is kept
    }

    let token = client.request(.zen, callbackQueue: .global()) { result in
        switch result {
        case .success(let response): print(response.statusCode)
        case .failure(let error): print(error)
        }
    }
    token.cancel()  // the completion handler then receives NALError.cancelled
    // README: end client
    _ = (zen, repositories)
}

@Suite("README client example")
struct READMEClientExampleTests {
    @Test("the README's calls work over an in-memory transport")
    func clientExampleRuns() async throws {
        let body = Data(#"{"items":[{"full_name":"apple/swift-nio"}]}"#.utf8)
        let client = Client<GitHub>(transport: MemoryTransport(body: body))
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let repositories = try await client.request(
            .search(query: "swift nio", page: 1), as: [Repository].self, atKeyPath: "items", using: decoder)
        #expect(repositories.map(\.fullName) == ["apple/swift-nio"])
        let missing = Client<GitHub>(transport: MemoryTransport(status: 404))
        do {
            _ = try await missing.request(.userProfile("no-such-user"))
            Issue.record("a 404 passed validation")
        } catch {
            #expect(error.response?.statusCode == 404)
        }
    }
}
