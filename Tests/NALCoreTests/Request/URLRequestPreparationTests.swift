import CTestProbes
import Foundation
import NALCore
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("urlRequest(): every RequestType")
struct URLRequestPreparationTests {
    struct Payload: Codable, Equatable, Sendable {
        var title: String
        var labels: [String]
    }

    private func prepare(
        _ requestType: RequestType, method: HTTPMethod = .get, path: String = "search",
        headers: [String: String]? = nil
    ) throws -> URLRequest {
        try TestEndpoint(path: path, method: method, requestType: requestType, headers: headers).urlRequest()
    }

    @Test("plain")
    func plain() throws {
        let request = try prepare(.plain)
        #expect(request.url?.absoluteString == "https://api.example.com/v1/search")
        #expect(request.httpMethod == "GET")
        #expect(request.httpBody == nil)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
    }

    @Test("data")
    func data() throws {
        let request = try prepare(.data(Data([1, 2, 3])), method: .post)
        #expect(request.httpBody == Data([1, 2, 3]))
        #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
    }

    @Test("jsonEncodable and customJSONEncodable")
    func jsonEncodable() throws {
        let payload = Payload(title: "Bug", labels: ["a/b"])
        let request = try prepare(.jsonEncodable(payload), method: .post)
        #expect(try JSONDecoder().decode(Payload.self, from: #require(request.httpBody)) == payload)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let custom = try prepare(.customJSONEncodable(payload, encoder: encoder), method: .post)
        #expect(custom.bodyString == #"{"labels":["a/b"],"title":"Bug"}"#)
    }

    @Test("parameters with URLEncoding.default: the reference workload")
    func referenceWorkload() throws {
        let request = try prepare(.parameters(referenceParameters, encoding: URLEncoding.default))
        #expect(
            request.url?.absoluteString
                == "https://api.example.com/v1/search?filter%5Blang%5D=swift&filter%5Bmin%5D=10&order=desc&page=2"
                + "&per_page=50&q=swift%20nio&sort=stars&tags%5B%5D=server&tags%5B%5D=linux")
        #expect(request.httpBody == nil)
    }

    /// Preparation writes the URL into 1 KiB of stack and each key into 256 bytes; past those it moves to the heap.
    @Test("a URL past 1 KiB and nested keys past 256 bytes are written whole", arguments: [200, 1_000, 5_000])
    func longURLsAndKeys(length: Int) throws {
        let long = String(repeating: "k", count: length)
        let parameters: Parameters = [
            "a": "x", long: ["inner": [long: 1]], "z": .array(Array(repeating: "y", count: length / 50)),
        ]
        let request = try prepare(.parameters(parameters, encoding: URLEncoding.default), path: "p/\(long)")
        let values = Array(repeating: "z%5B%5D=y", count: length / 50).joined(separator: "&")
        let expected =
            "https://api.example.com/v1/p/\(long)?a=x&\(long)%5Binner%5D%5B\(long)%5D=1"
            + (values.isEmpty ? "" : "&" + values)
        #expect(request.url?.absoluteString == expected)
        // The same bytes come out of the form body, which writes into a buffer of its own.
        let form = try prepare(.parameters(parameters, encoding: URLEncoding.default), method: .post)
        #expect(form.bodyString == String(expected.drop { $0 != "?" }.dropFirst()))
    }

    #if os(Linux)
        /// A buffer that began on stack scratch and grew onto the heap must still free what it grew into.
        @Test(
            "URLs and keys past their stack scratch leave nothing on the heap: 2,000 requests keep under 8 MB",
            .enabled(if: nal_allocated_bytes() >= 0, "the heap in use is known with glibc 2.33+, no sanitizer"))
        func longURLsAndKeysAreFreed() async {
            // In a child process: the heap's size in use is the process's, so nothing else may run beside it.
            await inChildProcess {
                let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
                    let long = String(repeating: "k", count: 8_000)
                    let endpoint = TestEndpoint(
                        path: "p/\(long)",
                        requestType: .parameters([long: ["inner": 1]], encoding: URLEncoding.default))
                    func prepare(_ count: Int) -> Int {
                        var length = 0
                        for _ in 0..<count { length += (try? endpoint.urlRequest())?.url?.absoluteString.count ?? 0 }
                        return length
                    }
                    guard prepare(200) > 0 else {
                        print("the long request could not be prepared")
                        exit(1)
                    }
                    let before = nal_allocated_bytes()
                    _ = prepare(2_000)
                    // A leak would keep every buffer each request grew through, some 45 KiB: about 90 MB.
                    let growth = nal_allocated_bytes() - before
                    if growth > 8_000_000 {
                        print("2,000 long requests left \(growth) bytes on the heap")
                        exit(1)
                    }
                    exit(0)
                }
                if let result, result.exitStatus != .exitCode(0) {
                    Issue.record("\(String(decoding: result.standardOutputContent, as: UTF8.self))")
                }
            }
        }
    #endif

    @Test("parameters go to the body for POST and as JSON with JSONEncoding")
    func parametersInBody() throws {
        let form = try prepare(.parameters(["a": 1, "b": "x y"], encoding: URLEncoding.default), method: .post)
        #expect(form.url?.query == nil)
        #expect(form.bodyString == "a=1&b=x%20y")
        #expect(form.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")

        let json = try prepare(.parameters(["a": 1], encoding: JSONEncoding.default), method: .put)
        #expect(json.bodyString == #"{"a":1}"#)
        #expect(json.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test("a user-written ParameterEncoding is used and its errors are wrapped")
    func customEncoding() throws {
        struct HeaderEncoding: ParameterEncoding {
            func encode(_ request: URLRequest, with parameters: Parameters) throws -> URLRequest {
                var request = request
                for (key, value) in parameters { request.setValue("\(value)", forHTTPHeaderField: "X-\(key)") }
                return request
            }
        }
        let request = try prepare(.parameters(["Trace": "on"], encoding: HeaderEncoding()))
        #expect(request.value(forHTTPHeaderField: "X-Trace") == #"string("on")"#)

        struct Refusing: ParameterEncoding {
            struct No: Error {}
            func encode(_ request: URLRequest, with parameters: Parameters) throws -> URLRequest { throw No() }
        }
        guard
            case .parameterEncodingFailed(let name, let underlying)? = encodingFailure({
                try prepare(.parameters([:], encoding: Refusing()))
            })
        else { Issue.record("the custom error was lost"); return }
        #expect(name == "Refusing")
        #expect(underlying is Refusing.No)
    }

    @Test("compositeData: body as is, parameters in the query")
    func compositeData() throws {
        let request = try prepare(.compositeData(Data("raw".utf8), urlParameters: ["v": 2]), method: .post)
        #expect(request.url?.query == "v=2")
        #expect(request.bodyString == "raw")
    }

    @Test("compositeParameters: body through its encoding, URL parameters in the query")
    func compositeParameters() throws {
        let request = try prepare(
            .compositeParameters(
                bodyParameters: ["b": true], bodyEncoding: JSONEncoding.default, urlParameters: ["u": 1]),
            method: .post)
        #expect(request.url?.query == "u=1")
        #expect(request.bodyString == #"{"b":true}"#)

        let form = try prepare(
            .compositeParameters(bodyParameters: ["b": true], bodyEncoding: URLEncoding.httpBody, urlParameters: [:]),
            method: .get)
        #expect(form.url?.query == nil)
        #expect(form.bodyString == "b=1")

        let reason = invalidRequestReason {
            try prepare(
                .compositeParameters(
                    bodyParameters: ["b": 1], bodyEncoding: URLEncoding.queryString, urlParameters: [:]))
        }
        #expect(reason == .bodyEncodingTargetsQuery)
    }

    @Test("encodableQuery and formEncodable")
    func encodables() throws {
        struct Filter: Encodable, Sendable {
            var q = "swift nio"
            var page = 2
        }
        let query = try prepare(.encodableQuery(Filter()))
        #expect(query.url?.absoluteString == "https://api.example.com/v1/search?page=2&q=swift%20nio")
        #expect(query.httpBody == nil)

        let plus = try prepare(.encodableQuery(Filter(), encoder: URLEncodedFormEncoder(spaceEncoding: .plusReplaced)))
        #expect(plus.url?.query == "page=2&q=swift+nio")

        let form = try prepare(.formEncodable(Filter()), method: .post)
        #expect(form.bodyString == "page=2&q=swift%20nio")
        #expect(form.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")

        struct Empty: Encodable, Sendable {}
        #expect(try prepare(.encodableQuery(Empty())).url?.absoluteString == "https://api.example.com/v1/search")

        // A base URL's own query comes first; the encoded one follows after '&'.
        let keyed = TestEndpoint(
            baseURL: try #require(URL(string: "https://api.example.com/v1?key=k")), path: "search",
            requestType: .encodableQuery(Filter()))
        let keyedURL = try keyed.urlRequest().url?.absoluteString
        #expect(keyedURL == "https://api.example.com/v1/search?key=k&page=2&q=swift%20nio")
    }

    @Test("uploads and downloads: URL and query here, the body is the transport's job")
    func transfers() throws {
        let part = MultipartFormBodyPart(provider: .data(Data("x".utf8)), name: "file", fileName: "x.txt")
        let destination = DownloadDestination.file(URL(fileURLWithPath: "/tmp/nal-download"))
        let cases: [(RequestType, HTTPMethod, String?)] = [
            (.uploadData(Data("x".utf8)), .post, nil),
            (.uploadFile(URL(fileURLWithPath: "/tmp/x")), .put, nil),
            (.uploadMultipart([part]), .post, nil),
            (.uploadCompositeMultipart([part], urlParameters: ["album": 7]), .post, "album=7"),
            (.download(destination), .get, nil),
            (
                .downloadParameters(["v": "1 2"], encoding: URLEncoding.default, destination: destination), .get,
                "v=1%202"
            ),
        ]
        for (requestType, method, query) in cases {
            let request = try prepare(requestType, method: method)
            #expect(request.url?.query == query)
            #expect(request.httpBody == nil)
        }
        // A multipart upload gets its boundary here, with the headers, the same for the same parts.
        let multipart = try prepare(.uploadMultipart([part]), method: .post)
        let contentType = try #require(multipart.value(forHTTPHeaderField: "Content-Type"))
        #expect(contentType.hasPrefix("multipart/form-data; boundary=nal-"))
        #expect(
            try prepare(.uploadMultipart([part]), method: .post).value(forHTTPHeaderField: "Content-Type")
                == contentType)
        let other = MultipartFormBodyPart(provider: .data(Data("y".utf8)), name: "file", fileName: "x.txt")
        #expect(
            try prepare(.uploadMultipart([other]), method: .post).value(forHTTPHeaderField: "Content-Type")
                != contentType)
        let jsonDownload = try prepare(
            .downloadParameters(["v": 1], encoding: JSONEncoding.default, destination: destination))
        #expect(jsonDownload.bodyString == #"{"v":1}"#)
    }

    @Test("headers, timeout and cache policy")
    func endpointOptions() throws {
        var endpoint = TestEndpoint(
            path: "x", method: .post, requestType: .parameters(["a": 1], encoding: JSONEncoding.default))
        endpoint.headers = ["Content-Type": "application/merge-patch+json", "X-Trace": "1"]
        endpoint.timeout = 7
        endpoint.cachePolicy = .reloadIgnoringLocalCacheData
        let request = try endpoint.urlRequest()
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/merge-patch+json")
        #expect(request.value(forHTTPHeaderField: "X-Trace") == "1")
        #expect(request.timeoutInterval == 7)
        #expect(request.cachePolicy == .reloadIgnoringLocalCacheData)
    }

    @Test("custom methods are sent as written")
    func customMethod() throws {
        #expect(try prepare(.plain, method: "PROPFIND").httpMethod == "PROPFIND")
        for method in [HTTPMethod.get, .post, .put, .patch, .delete, .head, .options, .trace, .connect] {
            #expect(try prepare(.plain, method: method).httpMethod == method.rawValue)
        }
    }
}
