// swift-format-ignore-file: NeverForceUnwrap

// (A table of literal URLs and ranges, each of which parses.)
import Foundation
import NALCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The safety issue's bad inputs, one row each: every row must end in the typed `NALError` it names, never in a
/// crash, and no secret of the row may appear in the error's message or in the failed request's cURL form.
@Suite("Bad input table (safety issue items 1, 2, 3, 6, 7, 8, 9 and the smaller questions)")
struct BadInputTableTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let attempt: @Sendable () async throws -> Void
        let matches: @Sendable (NALError) -> Bool
        /// Text that must not appear in the error's description or in the cURL form of its response's request.
        var hidden: [String] = []

        var testDescription: String { name }
    }

    /// A closed loopback port: requests that pass every check fail with a transport error, never a success.
    static let closedPort = URL(string: "http://127.0.0.1:1")!

    static func prepare(_ endpoint: TestEndpoint) -> @Sendable () async throws -> Void {
        { _ = try endpoint.urlRequest() }
    }

    static func call(
        _ endpoint: TestEndpoint, options: RequestOptions = RequestOptions(),
        transport: any Transport = MemoryTransport(),
        willSend: Client<TestEndpoint>.RequestHook? = nil
    ) -> @Sendable () async throws -> Void {
        {
            let client = Client<TestEndpoint>(transport: transport, willSend: willSend)
            _ = try await client.request(endpoint, options: options)
        }
    }

    static func invalidTimeout(
        _ setting: String, _ check: @escaping @Sendable (Double) -> Bool
    )
        -> @Sendable (NALError) -> Bool
    {
        { error in
            guard case .invalidRequest(.invalidTimeout(let named, let value)) = error else { return false }
            return named == setting && check(value)
        }
    }

    static func invalid(_ reason: InvalidRequestReason) -> @Sendable (NALError) -> Bool {
        { error in
            guard case .invalidRequest(let actual) = error else { return false }
            return actual == reason
        }
    }

    static func nestingTooDeep(prefix: String) -> @Sendable (NALError) -> Bool {
        { error in
            guard case .encoding(.nestingTooDeep(let keyPath, let limit)) = error else { return false }
            return limit == ParameterValue.maximumNestingDepth && keyPath.hasPrefix(prefix)
        }
    }

    static func rejectedStatus(_ error: NALError) -> Bool {
        if case .unacceptableStatusCode = error { return true }
        return false
    }

    static func nested(_ depth: Int, dictionaries: Bool) -> ParameterValue {
        var value: ParameterValue = 1
        for _ in 0..<depth { value = dictionaries ? ["a": value] : [value] }
        return value
    }

    /// An `Encodable` nested `depth` levels deep through its own `encode(to:)`.
    struct Nest: Encodable, Sendable {
        let depth: Int
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            if depth > 0 { try container.encode(Nest(depth: depth - 1), forKey: .inner) }
        }
        enum Key: CodingKey { case inner }
    }

    struct SetsContentLength: ParameterEncoding {
        func encode(_ request: URLRequest, with parameters: Parameters) throws -> URLRequest {
            var request = request
            request.httpBody = Data("abc".utf8)
            request.setValue("3", forHTTPHeaderField: "Content-Length")
            return request
        }
    }

    static let rows: [Row] = timeoutRows + depthRows + framingRows + secretRows + headerRows + smallerRows

    static let timeoutRows: [Row] = [
        Row(
            name: "1: endpoint timeout NaN", attempt: prepare(TestEndpoint(timeout: .nan)),
            matches: invalidTimeout("endpoint timeout") { $0.isNaN }),
        Row(
            name: "1: endpoint timeout infinity", attempt: prepare(TestEndpoint(timeout: .infinity)),
            matches: invalidTimeout("endpoint timeout") { $0 == .infinity }),
        Row(
            name: "1: endpoint timeout 1e16", attempt: prepare(TestEndpoint(timeout: 1e16)),
            matches: invalidTimeout("endpoint timeout") { $0 == 1e16 }),
        Row(
            name: "1: endpoint timeout just above 7 days", attempt: prepare(TestEndpoint(timeout: 604_801)),
            matches: invalidTimeout("endpoint timeout") { $0 == 604_801 }),
        Row(
            name: "1: endpoint timeout 0", attempt: prepare(TestEndpoint(timeout: 0)),
            matches: invalidTimeout("endpoint timeout") { $0 == 0 }),
        Row(
            name: "1: endpoint timeout negative", attempt: prepare(TestEndpoint(timeout: -1)),
            matches: invalidTimeout("endpoint timeout") { $0 == -1 }),
        Row(
            name: "1: endpoint totalTimeout NaN", attempt: prepare(TestEndpoint(totalTimeout: .nan)),
            matches: invalidTimeout("endpoint totalTimeout") { $0.isNaN }),
        Row(
            name: "1: RequestOptions.timeout NaN",
            attempt: call(TestEndpoint(), options: RequestOptions(timeout: .nan)),
            matches: invalidTimeout("RequestOptions.timeout") { $0.isNaN }),
        Row(
            name: "1: RequestOptions.timeout 1e16 through URLSessionTransport",
            attempt: call(
                TestEndpoint(baseURL: closedPort), options: RequestOptions(timeout: 1e16),
                transport: URLSessionTransport()),
            matches: invalidTimeout("RequestOptions.timeout") { $0 == 1e16 }),
        Row(
            name: "1: RequestOptions.totalTimeout infinity",
            attempt: call(TestEndpoint(), options: RequestOptions(totalTimeout: .infinity)),
            matches: invalidTimeout("RequestOptions.totalTimeout") { $0 == .infinity }),
        Row(
            name: "1: a hook sets timeoutInterval to NaN; URLSessionTransport refuses it before sending",
            attempt: call(
                TestEndpoint(baseURL: closedPort), transport: URLSessionTransport(),
                willSend: { request, _ in
                    var request = request
                    request.timeoutInterval = .nan
                    return request
                }),
            matches: invalidTimeout("URLRequest timeoutInterval") { $0.isNaN }),
        Row(
            name: "1: the session configuration's timeoutIntervalForRequest is infinite",
            attempt: call(
                TestEndpoint(baseURL: closedPort),
                transport: URLSessionTransport(
                    configuration: {
                        let configuration = URLSessionConfiguration.ephemeral
                        configuration.timeoutIntervalForRequest = .infinity
                        return configuration
                    }())),
            matches: invalidTimeout("URLSessionConfiguration timeoutIntervalForRequest") { $0 == .infinity }),
    ]

    static let depthRows: [Row] = [
        Row(
            name: "2: URLEncoding, dictionaries 10,000 deep",
            attempt: prepare(
                TestEndpoint(
                    requestType: .parameters(["a": nested(10_000, dictionaries: true)], encoding: URLEncoding.default)
                )),
            matches: nestingTooDeep(prefix: "a[a][a]")),
        Row(
            name: "2: URLEncoding, arrays 10,000 deep",
            attempt: prepare(
                TestEndpoint(
                    requestType: .parameters(["a": nested(10_000, dictionaries: false)], encoding: URLEncoding.default)
                )),
            matches: nestingTooDeep(prefix: "a[0][0]")),
        Row(
            name: "2: JSONEncoding, dictionaries 10,000 deep",
            attempt: prepare(
                TestEndpoint(
                    method: .post,
                    requestType: .parameters(["a": nested(10_000, dictionaries: true)], encoding: JSONEncoding.default)
                )),
            matches: nestingTooDeep(prefix: "a[a][a]")),
        Row(
            name: "2: JSONEncoding, arrays 10,000 deep",
            attempt: prepare(
                TestEndpoint(
                    method: .post,
                    requestType: .parameters(["a": nested(10_000, dictionaries: false)], encoding: JSONEncoding.default)
                )),
            matches: nestingTooDeep(prefix: "a[0][0]")),
        Row(
            name: "2: URLEncodedFormEncoder, an Encodable 10,000 deep",
            attempt: prepare(TestEndpoint(method: .post, requestType: .formEncodable(Nest(depth: 10_000)))),
            matches: nestingTooDeep(prefix: "inner[inner]")),
        Row(
            name: "2: encodableQuery, an Encodable 10,000 deep",
            attempt: prepare(TestEndpoint(requestType: .encodableQuery(Nest(depth: 10_000)))),
            matches: nestingTooDeep(prefix: "inner[inner]")),
    ]

    static let framingRows: [Row] =
        ["Content-Length", "Transfer-Encoding", "Host", "Connection", "Upgrade"].map { name in
            Row(
                name: "3: the endpoint sets \(name.lowercased())",
                attempt: prepare(TestEndpoint(method: .post, headers: [name.lowercased(): "3"])),
                matches: invalid(.framingHeader(name: name)))
        } + [
            Row(
                name: "3: a willSend hook sets Content-Length; URLSessionTransport refuses it before sending",
                attempt: call(
                    TestEndpoint(
                        baseURL: closedPort, method: .post, requestType: .data(Data(repeating: 65, count: 39))),
                    transport: URLSessionTransport(),
                    willSend: { request, _ in
                        var request = request
                        request.setValue("3", forHTTPHeaderField: "Content-Length")
                        return request
                    }),
                matches: invalid(.framingHeader(name: "Content-Length"))),
            Row(
                name: "3: a willSend hook sets it through setValidatedHeader",
                attempt: call(
                    TestEndpoint(method: .post),
                    willSend: { request, _ in
                        var request = request
                        try request.setValidatedHeader("chunked", forName: "Transfer-Encoding")
                        return request
                    }),
                matches: invalid(.framingHeader(name: "Transfer-Encoding"))),
            Row(
                name: "3: a custom ParameterEncoding sets Content-Length",
                attempt: prepare(
                    TestEndpoint(method: .post, requestType: .parameters(["a": 1], encoding: SetsContentLength()))),
                matches: invalid(.framingHeader(name: "Content-Length"))),
            Row(
                name: "3: the session configuration's additional headers set Connection",
                attempt: call(
                    TestEndpoint(baseURL: closedPort),
                    transport: URLSessionTransport(
                        configuration: {
                            let configuration = URLSessionConfiguration.ephemeral
                            configuration.httpAdditionalHeaders = ["Connection": "close"]
                            return configuration
                        }())),
                matches: invalid(.framingHeader(name: "Connection"))),
        ]

    static let failing = MemoryTransport(status: 500)

    static let secretRows: [Row] = [
        Row(
            name: "6: a password in the base URL; the status error and its cURL form hide it",
            attempt: call(
                TestEndpoint(baseURL: URL(string: "https://ada:hunter2@api.example.com/v1")!, path: "x"),
                transport: failing),
            matches: rejectedStatus, hidden: ["hunter2"]),
        Row(
            name: "6: a password in the URL of a transport failure",
            attempt: call(
                TestEndpoint(baseURL: URL(string: "http://ada:hunter2@127.0.0.1:1")!, path: "x"),
                transport: URLSessionTransport()),
            matches: { error in
                guard case .transport = error else { return false }
                return "\(error)".contains("ada:<redacted>@127.0.0.1:1")
            }, hidden: ["hunter2"]),
        Row(
            name: "6: a proxy's password in a transport's message (libcurl quotes the proxy's URL)",
            attempt: call(
                TestEndpoint(),
                transport: TestTransports.FailingTransport(
                    error: .transport(
                        URLError(
                            .unknown,
                            userInfo: [
                                NSLocalizedDescriptionKey:
                                    "Unsupported proxy scheme for 'gopher://ada:s3cr3t-8@127.0.0.1:1'"
                            ])))),
            matches: { error in
                guard case .transport = error else { return false }
                return "\(error)".contains("'gopher://ada:<redacted>@127.0.0.1:1'")
            }, hidden: ["s3cr3t-8"]),
        Row(
            name: "6: a URL with a password in the message of a hook's own error",
            attempt: call(
                TestEndpoint(),
                willSend: { _, _ in throw UpstreamRefusal() }),
            matches: { error in
                guard case .hookFailed = error else { return false }
                return "\(error)".contains("https://ada:<redacted>@host/")
            }, hidden: ["s3cr3t-9"]),
        Row(
            name: "7: nested and array query keys: user[password], access_token[]",
            attempt: call(
                TestEndpoint(
                    requestType: .parameters(
                        ["user": ["password": "s3cr3t-1"], "access_token": ["s3cr3t-2"], "page": 1],
                        encoding: URLEncoding.default)),
                transport: failing),
            matches: rejectedStatus, hidden: ["s3cr3t-1", "s3cr3t-2"]),
        Row(
            name: "7: Api-Key and X-Session-Token headers",
            attempt: call(
                TestEndpoint(headers: ["Api-Key": "s3cr3t-3", "X-Session-Token": "s3cr3t-4"]), transport: failing),
            matches: rejectedStatus, hidden: ["s3cr3t-3", "s3cr3t-4"]),
        Row(
            name: "7: secret fields at any depth of a JSON body",
            attempt: call(
                TestEndpoint(
                    method: .post,
                    requestType: .parameters(
                        ["user": ["name": "ada", "password": "s3cr3t-5"], "items": [["api_key": "s3cr3t-6"]]],
                        encoding: JSONEncoding.default)),
                transport: failing),
            matches: rejectedStatus, hidden: ["s3cr3t-5", "s3cr3t-6"]),
        Row(
            name: "7: secret fields of a form body, nested",
            attempt: call(
                TestEndpoint(
                    method: .post,
                    requestType: .parameters(["credentials": ["passwd": "s3cr3t-7"]], encoding: URLEncoding.httpBody)),
                transport: failing),
            matches: rejectedStatus, hidden: ["s3cr3t-7"]),
    ]

    static let headerRows: [Row] =
        [(0x01, "\u{01}"), (0x08, "\u{08}"), (0x1B, "\u{1B}"), (0x1F, "\u{1F}"), (0x7F, "\u{7F}")].map { code, text in
            let hex = String(code, radix: 16, uppercase: true)
            return Row(
                name: "8: a header value with the control character 0x\(hex)",
                attempt: prepare(TestEndpoint(headers: ["X-Note": "ab\(text)c"])),
                matches: invalid(
                    .invalidHeaderValue(
                        name: "X-Note",
                        problem: "contains the control character 0x\(hex.count == 1 ? "0" + hex : hex) at byte offset 2"
                    )))
        } + [
            Row(
                name: "8: a hook sets a value with ESC; URLSessionTransport refuses it before sending",
                attempt: call(
                    TestEndpoint(baseURL: closedPort), transport: URLSessionTransport(),
                    willSend: { request, _ in
                        var request = request
                        request.setValue("a\u{1B}[31m", forHTTPHeaderField: "X-Note")
                        return request
                    }),
                matches: invalid(
                    .invalidHeaderValue(name: "X-Note", problem: "contains the control character 0x1B at byte offset 1")
                )),
            Row(
                name: "9: two names that differ only in case",
                attempt: prepare(TestEndpoint(headers: ["X-A": "1", "x-a": "2"])),
                matches: invalid(.duplicateHeader(name: "X-A", otherName: "x-a"))),
            Row(
                name: "9: Authorization and authorization",
                attempt: prepare(TestEndpoint(headers: ["Authorization": "Bearer s3cr3t-8", "authorization": "x"])),
                matches: invalid(.duplicateHeader(name: "Authorization", otherName: "authorization")),
                hidden: ["s3cr3t-8"]),
        ]

    static let smallerRows: [Row] = [
        Row(
            name: "dot segments: ../../echo", attempt: prepare(TestEndpoint(path: "../../echo")),
            matches: { error in
                guard case .invalidRequest(.invalidPath("../../echo", let problem)) = error else { return false }
                return problem.hasPrefix("has the dot segment '..' at byte offset 0")
            }),
        Row(
            name: "dot segments: a/./b", attempt: prepare(TestEndpoint(path: "a/./b")),
            matches: { error in
                guard case .invalidRequest(.invalidPath("a/./b", let problem)) = error else { return false }
                return problem.hasPrefix("has the dot segment '.' at byte offset 2")
            }),
        Row(
            name: "dot segments: users/..", attempt: prepare(TestEndpoint(path: "users/..")),
            matches: { error in
                guard case .invalidRequest(.invalidPath(_, let problem)) = error else { return false }
                return problem.hasPrefix("has the dot segment '..' at byte offset 6")
            }),
        Row(
            name: "schemes: URLSessionTransport refuses ftp",
            attempt: call(
                TestEndpoint(baseURL: URL(string: "ftp://files.example.com")!), transport: URLSessionTransport()),
            matches: invalid(.unsupportedScheme("ftp"))),
        Row(
            name: "schemes: URLSessionTransport refuses ws",
            attempt: call(TestEndpoint(baseURL: URL(string: "ws://127.0.0.1:1")!), transport: URLSessionTransport()),
            matches: invalid(.unsupportedScheme("ws"))),
        Row(
            name: "empty keys: a custom array key that is empty",
            attempt: prepare(
                TestEndpoint(
                    requestType: .parameters(
                        ["a": [1, 2]], encoding: URLEncoding(arrayEncoding: .custom { _, _ in "" })))),
            matches: { error in
                guard case .encoding(.emptyKey("a[0]")) = error else { return false }
                return true
            }),
        Row(
            name: "empty keys: an empty key in a dictionary inside an array",
            attempt: prepare(TestEndpoint(requestType: .parameters(["a": [["": 1]]], encoding: URLEncoding.default))),
            matches: { error in
                guard case .encoding(.emptyKey("a[0]")) = error else { return false }
                return true
            }),
    ]

    /// A hook's own error whose text quotes a URL with a password.
    struct UpstreamRefusal: Error, CustomStringConvertible {
        var description: String { "https://ada:s3cr3t-9@host/ refused the token" }
    }

    @Test("each bad input ends in its typed NALError", arguments: rows)
    func badInput(row: Row) async {
        do {
            try await row.attempt()
            Issue.record("\(row.name): no error")
        } catch let error as NALError {
            #expect(row.matches(error), "\(row.name): unexpected \(error)")
            let shown = "\(error)" + (error.response.map { $0.request.curlCommand() } ?? "")
            for secret in row.hidden {
                #expect(!shown.contains(secret), "\(row.name): '\(secret)' leaked into \(shown)")
            }
        } catch {
            Issue.record("\(row.name): not an NALError: \(error)")
        }
    }

    @Test("the limit is exact: 512 nested containers encode, 513 do not")
    func nestingBoundary() throws {
        let limit = ParameterValue.maximumNestingDepth
        // The top-level parameters are the first container; `nested(n)` adds n more.
        let deepest = ["a": Self.nested(limit - 1, dictionaries: true)]
        let tooDeep = ["a": Self.nested(limit, dictionaries: true)]
        _ = try URLEncoding.default.queryString(deepest)
        _ = try JSONEncoding.default.data(deepest)
        _ = try URLEncodedFormEncoder().encode(Nest(depth: limit - 1))
        #expect(throws: NALError.self) { _ = try URLEncoding.default.queryString(tooDeep) }
        #expect(throws: NALError.self) { _ = try JSONEncoding.default.data(tooDeep) }
        #expect(throws: NALError.self) { _ = try URLEncodedFormEncoder().encode(Nest(depth: limit)) }
    }

    @Test("adding(headers:) replaces a header whatever its letter case, every time")
    func addingHeadersIgnoresCase() throws {
        // Before the fix, which value survived depended on dictionary order and changed from run to run.
        for attempt in 0..<50 {
            let base = TestEndpoint(headers: ["Authorization": "OLD", "X-Other": "\(attempt)"])
            let endpoint = Endpoint(base).adding(headers: ["authorization": "NEW"])
            #expect(endpoint.headers?.count == 2)
            #expect(try endpoint.urlRequest().value(forHTTPHeaderField: "Authorization") == "NEW")
        }
    }

    @Test("tab, space and bytes from 0x80 are allowed in header values")
    func allowedHeaderBytes() throws {
        let request = try TestEndpoint(headers: ["X-Note": "a\tb c é"]).urlRequest()
        #expect(request.value(forHTTPHeaderField: "X-Note") == "a\tb c é")
    }
}
