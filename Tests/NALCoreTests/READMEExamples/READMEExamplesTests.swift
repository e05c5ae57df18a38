import Foundation
import NALCore
import NALLogging
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Every block between `Docs: begin` and `Docs: end` below is a Swift block of the README or an article, character
// for character apart from indentation; `DocumentationSyncTests` compares them. The tests run the same code against
// an in-memory transport and check what the comments claim.

@Suite("README examples")
struct READMEExamplesTests {
    @Test("quick start: requests as the comments say")
    func quickStart() throws {
        // Docs: begin usage
        let request = try GitHub.search(query: "swift nio", page: 2).urlRequest()
        // https://api.github.com/search/repositories?page=2&q=swift%20nio&sort=stars

        let profile = try GitHub.userProfile("a/b?c").urlRequest()
        // profile.url: https://api.github.com/users/a%2Fb%3Fc

        // secrets are redacted unless you pass revealingSecrets: true
        print(request.curlCommand())
        // Docs: end usage
        #expect(
            request.url?.absoluteString == "https://api.github.com/search/repositories?page=2&q=swift%20nio&sort=stars")
        #expect(profile.url?.absoluteString == "https://api.github.com/users/a%2Fb%3Fc")
        #expect(request.value(forHTTPHeaderField: "Accept") == "application/vnd.github+json")
    }

    @Test("encodings give the text in the comments")
    func encodings() throws {
        // Docs: begin encodings
        let parameters: Parameters = [
            "ids": [1, 2], "filter": ["lang": "swift"], "exact": true,
        ]
        let query = try URLEncoding(arrayEncoding: .noBrackets, boolEncoding: .literal)
            .queryString(parameters)
        // exact=true&filter%5Blang%5D=swift&ids=1&ids=2

        struct Search: Encodable { var perPage = 50; var tags = ["server", "linux"] }
        let form = try URLEncodedFormEncoder(keyEncoding: .convertToSnakeCase).encode(Search())
        // per_page=50&tags%5B%5D=server&tags%5B%5D=linux

        let json = try JSONEncoding.default.data(["b": 1, "a": ["d": true, "c": nil]])
        // {"a":{"c":null,"d":true},"b":1}: keys sorted at every level, so the same parameters
        // give the same bytes in every process
        // Docs: end encodings
        #expect(query == "exact=true&filter%5Blang%5D=swift&ids=1&ids=2")
        #expect(form == "per_page=50&tags%5B%5D=server&tags%5B%5D=linux")
        #expect(String(decoding: json, as: UTF8.self) == #"{"a":{"c":null,"d":true},"b":1}"#)
    }

    @Test("a ParameterList endpoint gives the URL in the comment")
    func parameterList() throws {
        // Docs: begin parameter-list
        enum Search: RemoteService {
            case repositories(query: String, page: Int)

            var baseURL: URL { URL(string: "https://api.example.com")! }
            var path: String { "search" }
            var method: HTTPMethod { .get }
            var requestType: RequestType {
                switch self {
                case .repositories(let query, let page):
                    .parameterList([
                        "q": .string(query), "page": .int(page), "tags": ["server", "linux"],
                    ])
                }
            }
        }
        // https://api.example.com/search?page=2&q=swift%20nio&tags%5B%5D=server&tags%5B%5D=linux
        // Docs: end parameter-list
        let url = try Search.repositories(query: "swift nio", page: 2).urlRequest().url
        #expect(
            url?.absoluteString
                == "https://api.example.com/search?page=2&q=swift%20nio&tags%5B%5D=server&tags%5B%5D=linux")
    }

    @Test("errors: the README's error and message")
    func errors() {
        // Docs: begin errors
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
            // error is an NALError:
            // .invalidRequest(.invalidHeaderValue(name: "X-Trace", problem: ...)),
            // which says "Invalid request: the value of header 'X-Trace' contains CR (0x0D)
            // at byte offset 1; control characters other than tab are refused (RFC 9110),
            // and CR, LF and NUL would allow request smuggling."
        }
        // Docs: end errors
        #expect(
            invalidRequestReason { try Traced().urlRequest() }
                == .invalidHeaderValue(name: "X-Trace", problem: "contains CR (0x0D) at byte offset 1"))
        do {
            _ = try Traced().urlRequest()
        } catch {
            #expect(
                "\(error)"
                    == "Invalid request: the value of header 'X-Trace' contains CR (0x0D) at byte offset 1; control "
                    + "characters other than tab are refused (RFC 9110), and CR, LF and NUL would allow request "
                    + "smuggling.")
        }
    }

    @Test("the client options example builds a working client")
    func clientOptions() async throws {
        // Docs: begin client-options
        let client = Client<GitHub>(
            transport: URLSessionTransport(
                maximumResponseSize: 8 << 20, redirectPolicy: .follow),
            endpointMapping: {
                Endpoint($0).adding(headers: ["X-Request-ID": UUID().uuidString])
            },
            willSend: { request, _ in request },
            deduplicatesRequests: true)
        // Docs: end client-options
        _ = client
    }

    @Test("timeouts: a call past its total timeout ends with timedOut(.total)")
    func timeouts() async throws {
        let client = Client<GitHub>(transport: MemoryTransport(delay: .seconds(5)))
        var limit: TimeoutFailure.Limit?
        // Docs: begin timeouts
        do {
            _ = try await client.request(
                .zen, options: RequestOptions(timeout: 0.5, totalTimeout: 0.2))
        } catch .timedOut(let failure) {
            // failure.limit is .idle or .total; failure.seconds and failure.url say which value
            // and which request
            limit = failure.limit
        } catch {
            // other NALErrors
        }
        // Docs: end timeouts
        #expect(limit == .total)
    }

    @Test("redaction: added words and names are redacted in cURL output")
    func redaction() throws {
        // Docs: begin redaction
        // any key whose last component contains it
        SensitiveData.current.words.insert("passcode")
        // exactly this header, in any letter case
        SensitiveData.current.headerNames.insert("X-Tenant-Key")

        struct Unlock: RemoteService {
            var baseURL: URL { URL(string: "https://ada:hunter2@api.example.com")! }
            var path: String { "doors/front" }
            var method: HTTPMethod { .post }
            var requestType: RequestType {
                .parameters(
                    ["door": ["passcode": "1234"], "api_key": "k-42"],
                    encoding: JSONEncoding.default)
            }
            var headers: [String: String]? {
                ["X-Tenant-Key": "t-9", "Authorization": "Bearer abc"]
            }
        }
        print(try Unlock().urlRequest().curlCommand())
        // curl -X POST 'https://ada:<redacted>@api.example.com/doors/front' \
        //   -H 'Authorization: Bearer <redacted>' \
        //   -H 'Content-Type: application/json' \
        //   -H 'X-Tenant-Key: <redacted>' \
        //   --data-raw '{"api_key":"<redacted>","door":{"passcode":"<redacted>"}}'
        // Docs: end redaction
        #expect(
            try Unlock().urlRequest().curlCommand() == """
                curl -X POST 'https://ada:<redacted>@api.example.com/doors/front' \\
                  -H 'Authorization: Bearer <redacted>' \\
                  -H 'Content-Type: application/json' \\
                  -H 'X-Tenant-Key: <redacted>' \\
                  --data-raw '{"api_key":"<redacted>","door":{"passcode":"<redacted>"}}'
                """)
    }

    @Test("logging: privacy as the comments say")
    func logging() async throws {
        let count = 3
        let userID = "u-1"
        let token = "s3cr3t"
        let host = "api.example.com"
        let ms = 12.5
        try await LogCapture.capture("com.example.app=debug,*=off") { sink in
            // Docs: begin logging
            let logger = Logger(subsystem: "com.example.app", category: "sync")
            logger.info("fetched \(count) items for \(userID)")  // fetched 3 items for <private>
            // token <mask.hash: '…'>
            logger.debug("token \(token, privacy: .private(mask: .hash))")
            logger.notice(
                "host \(host, privacy: .public) took \(ms, format: .fixed(precision: 1)) ms")
            // Docs: end logging
            let lines = sink.messages(subsystem: "com.example.app")
            #expect(lines.first == "fetched 3 items for <private>")
            #expect(lines.dropFirst().first?.hasPrefix("token <mask.hash: '") == true)
            #expect(lines.last == "host api.example.com took 12.5 ms")
        }
    }
}

/// The README's Client example, compiled verbatim; `clientExampleRuns` executes the same calls from memory.
func readmeClientExample() async throws {
    // Docs: begin client
    let client = Client<GitHub>()

    let zen = try await client.request(.zen).string()
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    let repositories = try await client.request(
        .search(query: "swift nio", page: 1), as: [Repository].self, atKeyPath: "items",
        using: decoder)

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
    // Docs: end client
    _ = (zen, repositories)
}

@Suite("README client example")
struct READMEClientExampleTests {
    @Test("the README's calls work over an in-memory transport")
    func clientExampleRuns() async throws {
        let body = Data(#"{"items":[{"full_name":"apple/swift-nio","stargazers_count":8000}]}"#.utf8)
        let client = Client<GitHub>(transport: MemoryTransport(body: body))
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let repositories = try await client.request(
            .search(query: "swift nio", page: 1), as: [Repository].self, atKeyPath: "items", using: decoder)
        #expect(repositories.map(\.fullName) == ["apple/swift-nio"])
        #expect(repositories.map(\.stargazersCount) == [8000])
        let missing = Client<GitHub>(transport: MemoryTransport(status: 404))
        do {
            _ = try await missing.request(.userProfile("no-such-user"))
            Issue.record("a 404 passed validation")
        } catch {
            #expect(error.response?.statusCode == 404)
        }
    }
}
