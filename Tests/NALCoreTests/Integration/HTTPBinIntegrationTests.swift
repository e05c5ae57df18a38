import Foundation
import NALCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The Client and its transport (URLSession, or CurlTransport with NAL_TEST_TRANSPORT=curl) against a real httpbin
/// on 127.0.0.1.
@Suite("Integration: transport against httpbin", .enabled(if: HTTPBin.url != nil, HTTPBin.skipReason))
struct HTTPBinIntegrationTests {
    let client = Client<TestEndpoint>(transport: TestTransports.make())

    /// httpbin's echo of a request, decoded as typed values.
    struct Echo: Decodable {
        var method: String
        var args: [String: ParameterValue]
        var headers: [String: String]
        var form: [String: ParameterValue]
        var json: ParameterValue?
        var data: String
    }

    @Test("GET through /anything: method, headers and query echoed exactly")
    func get() async throws {
        let endpoint = HTTPBin.endpoint(
            "anything",
            requestType: .parameters(
                ["q": "swift nio", "page": 2, "tags": ["a b", "ü"], "f": ["x": "1"]], encoding: URLEncoding.default),
            headers: ["X-Trace": "abc-123"])
        let echo = try await client.request(endpoint, as: Echo.self)
        #expect(echo.method == "GET")
        #expect(echo.args == ["q": "swift nio", "page": "2", "tags[]": ["a b", "ü"], "f[x]": "1"])
        #expect(echo.headers["X-Trace"] == "abc-123")
        #expect(echo.form.isEmpty)
        #expect(echo.data.isEmpty)
    }

    @Test("the status line's version and reason phrase: as gunicorn sent them over CurlTransport, nil over URLSession")
    func statusLine() async throws {
        let response = try await client.request(HTTPBin.endpoint("get"))
        if client.transport is URLSessionTransport {
            #expect(response.httpVersion == nil)
            #expect(response.reasonPhrase == nil)
        } else {
            #expect(response.httpVersion == "HTTP/1.1")
            #expect(response.reasonPhrase == "OK")
        }
    }

    /// FoundationNetworking refuses a GET with a body (URLError -1103), so bodies go with the other methods.
    @Test(
        "every method with a body through /anything: method, headers, query and form echoed exactly",
        arguments: [HTTPMethod.post, .put, .patch, .delete])
    func methodsWithForm(method: HTTPMethod) async throws {
        let endpoint = HTTPBin.endpoint(
            "anything", method: method,
            requestType: .compositeParameters(
                bodyParameters: ["name": "Ada Lovelace", "langs": ["en", "fr"], "ok": true],
                bodyEncoding: URLEncoding.httpBody, urlParameters: ["q": "swift nio", "page": 2, "tags": ["a b", "ü"]]),
            headers: ["X-Trace": "abc-123", "Accept": "application/json"])
        let echo = try await client.request(endpoint, as: Echo.self)
        #expect(echo.method == method.rawValue)
        #expect(echo.args == ["q": "swift nio", "page": "2", "tags[]": ["a b", "ü"]])
        #expect(echo.headers["X-Trace"] == "abc-123")
        #expect(echo.headers["Content-Type"] == "application/x-www-form-urlencoded; charset=utf-8")
        #expect(echo.form == ["name": "Ada Lovelace", "langs[]": ["en", "fr"], "ok": "1"])
    }

    @Test("JSON bodies are echoed exactly", arguments: [HTTPMethod.post, .put, .patch, .delete])
    func methodsWithJSON(method: HTTPMethod) async throws {
        let body: Parameters = [
            "title": "Crash", "labels": ["bug", "linux"], "count": 3, "ratio": 0.5, "draft": false, "none": nil,
            "nested": ["k": "v"],
        ]
        let endpoint = HTTPBin.endpoint(
            "anything", method: method, requestType: .parameters(body, encoding: JSONEncoding.default))
        let echo = try await client.request(endpoint, as: Echo.self)
        #expect(echo.method == method.rawValue)
        #expect(echo.json == .dictionary(body))
        #expect(echo.headers["Content-Type"] == "application/json")
    }

    @Test("HEAD and OPTIONS")
    func headAndOptions() async throws {
        let head = try await client.request(HTTPBin.endpoint("anything", method: .head))
        #expect(head.statusCode == 200)
        #expect(head.data.isEmpty)
        let options = try await client.request(HTTPBin.endpoint("anything", method: .options))
        #expect(options.statusCode == 200)
        #expect(options.headers["allow"]?.contains("PATCH") == true)
    }

    @Test(
        "validation of /status/418, /status/204 and /status/302 under every RequestValidation",
        arguments: [
            (418, RequestValidation.none, true), (418, .successCodes, false), (418, .successAndRedirectCodes, false),
            (418, .customCodes([418]), true),
            (204, RequestValidation.none, true), (204, .successCodes, true), (204, .successAndRedirectCodes, true),
            (204, .customCodes([200]), false),
            (302, RequestValidation.none, true), (302, .successCodes, false), (302, .successAndRedirectCodes, true),
            (302, .customCodes([302]), true),
        ]
    )
    func validation(status: Int, validation: RequestValidation, accepted: Bool) async throws {
        // 302 must be seen as is, so redirects are not followed here.
        let client = Client<TestEndpoint>(transport: TestTransports.make(redirectPolicy: .doNotFollow))
        do {
            let response = try await client.request(HTTPBin.endpoint("status/\(status)", validation: validation))
            #expect(accepted, "status \(status) passed \(validation)")
            #expect(response.statusCode == status)
        } catch {
            #expect(!accepted, "status \(status) failed \(validation): \(error)")
            guard case .unacceptableStatusCode(let response) = error else {
                Issue.record("expected unacceptableStatusCode, got \(error)")
                return
            }
            #expect(response.statusCode == status)
        }
    }

    @Test("/redirect/3 is followed to the end")
    func redirects() async throws {
        let response = try await client.request(HTTPBin.endpoint("redirect/3"))
        #expect(response.statusCode == 200)
        #expect(response.httpResponse.url?.path == "/get")
    }

    @Test(
        "a redirect to another origin drops Authorization, Cookie and Proxy-Authorization; the same origin keeps them")
    func credentialsOnRedirect() async throws {
        let secrets = [
            "Authorization": "Bearer top-secret", "Cookie": "session=42", "Proxy-Authorization": "Basic cHJveHk=",
        ]
        let crossOrigin = HTTPBin.endpoint(
            "redirect-to",
            requestType: .parameters(
                ["url": .string(HTTPBin.otherOrigin + "/anything")], encoding: URLEncoding.default),
            headers: secrets.merging(["X-Keep": "1"]) { $1 })
        let away = try await client.request(crossOrigin, as: Echo.self)
        #expect(away.headers["Host"]?.hasPrefix("localhost") == true)
        #expect(away.headers["Authorization"] == nil)
        #expect(away.headers["Cookie"] == nil)
        #expect(away.headers["Proxy-Authorization"] == nil)
        #expect(away.headers["X-Keep"] == "1")

        let sameOrigin = HTTPBin.endpoint(
            "redirect-to", requestType: .parameters(["url": "/anything"], encoding: URLEncoding.default),
            headers: secrets)
        let home = try await client.request(sameOrigin, as: Echo.self)
        #expect(home.headers["Authorization"] == "Bearer top-secret")
        #expect(home.headers["Cookie"] == "session=42")
    }

    @Test("a custom redirect policy sees the proposed request")
    func customRedirectPolicy() async throws {
        let transport = TestTransports.make(
            redirectPolicy: .custom { _, proposed in
                proposed.url?.path == "/get" ? nil : proposed
            })
        let response = try await Client<TestEndpoint>(transport: transport).request(
            HTTPBin.endpoint("redirect/2", validation: .successAndRedirectCodes))
        #expect(response.statusCode == 302)
    }

    @Test("/basic-auth accepts the right credentials and rejects others")
    func basicAuth() async throws {
        let good = Data("nal:s3cret".utf8).base64EncodedString()
        let ok = try await client.request(
            HTTPBin.endpoint("basic-auth/nal/s3cret", headers: ["Authorization": "Basic \(good)"]))
        #expect(try ok.json() == ["authenticated": true, "user": "nal"])
        let bad = Data("nal:wrong".utf8).base64EncodedString()
        do {
            _ = try await client.request(
                HTTPBin.endpoint("basic-auth/nal/s3cret", headers: ["Authorization": "Basic \(bad)"]))
            Issue.record("wrong credentials were accepted")
        } catch {
            #expect(error.response?.statusCode == 401, "\(error)")
        }
    }

    /// httpbin 0.10 caps /bytes, /stream-bytes and /range at 100 KiB, whatever N asks for. The 1 MiB check is an
    /// echo: a known 1 MiB body sent to /anything must come back byte for byte inside the (larger) JSON response.
    @Test("large bodies arrive whole: /bytes/1048576 as announced, 100 KiB chunked, 1 MiB echoed byte for byte")
    func largeBodies() async throws {
        let seeded = HTTPBin.endpoint(
            "bytes/1048576", requestType: .parameters(["seed": 7], encoding: URLEncoding.default))
        let first = try await client.request(seeded)
        #expect(first.data.count == Int(first.headers["Content-Length"] ?? ""))
        #expect(first.data.count == 102_400)

        let streamed = try await client.request(
            HTTPBin.endpoint(
                "stream-bytes/102400", requestType: .parameters(["chunk_size": 1024], encoding: URLEncoding.default)))
        #expect(streamed.data.count == 102_400)

        let alphabet = Array("abcdefghijklmnopqrstuvwxyz".utf8)
        let range = try await client.request(HTTPBin.endpoint("range/102400")).data
        #expect(range.count == 102_400)
        #expect(range.enumerated().allSatisfy { $0.element == alphabet[$0.offset % 26] })

        let payload = String(decoding: (0..<1_048_576).map { alphabet[$0 % 26] }, as: UTF8.self)
        let echo = try await client.request(
            HTTPBin.endpoint(
                "anything", method: .post, requestType: .data(Data(payload.utf8)),
                headers: ["Content-Type": "text/plain"]),
            as: Echo.self)
        #expect(echo.data.count == 1_048_576)
        #expect(echo.data == payload)
    }

    @Test("/drip: a slow body arrives whole")
    func drip() async throws {
        let endpoint = HTTPBin.endpoint(
            "drip",
            requestType: .parameters(
                ["duration": 1, "numbytes": 20, "delay": 0, "code": 200], encoding: URLEncoding.default))
        let response = try await client.request(endpoint)
        #expect(response.data == Data(repeating: UInt8(ascii: "*"), count: 20))
    }

    @Test("/delay/10 with a 1 s timeout ends early with timedOut")
    func timeout() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        do {
            _ = try await client.request(HTTPBin.endpoint("delay/10", timeout: 1))
            Issue.record("the request did not time out")
        } catch {
            guard case .timedOut = error else {
                Issue.record("expected timedOut, got \(error)")
                return
            }
        }
        #expect(clock.now - start < Timing.bound(.seconds(1)))
    }

    @Test("/delay/10 cancelled after 300 ms ends early with cancelled")
    func cancellation() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        let task = Task { try await client.request(HTTPBin.endpoint("delay/10")) }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("the cancelled request succeeded")
        } catch {
            guard case NALError.cancelled = error else {
                Issue.record("expected cancelled, got \(error)")
                return
            }
        }
        #expect(clock.now - start < Timing.bound(.milliseconds(300)))
    }

    @Test("/gzip is decoded")
    func gzip() async throws {
        let response = try await client.request(HTTPBin.endpoint("gzip"))
        guard case .dictionary(let object) = try response.json() else {
            Issue.record("gzip body is not JSON: \(response.data.prefix(20))")
            return
        }
        #expect(object["gzipped"] == true)
    }

    @Test("100 concurrent requests are each answered correctly")
    func concurrency() async throws {
        let client = client
        let results = try await withThrowingTaskGroup(of: (Int, ParameterValue?).self) { group in
            for index in 0..<100 {
                group.addTask {
                    let echo = try await client.request(
                        HTTPBin.endpoint(
                            "anything", requestType: .parameters(["i": .int(index)], encoding: URLEncoding.default)),
                        as: Echo.self)
                    return (index, echo.args["i"])
                }
            }
            return try await group.reduce(into: [(Int, ParameterValue?)]()) { $0.append($1) }
        }
        #expect(results.count == 100)
        for (index, echoed) in results {
            #expect(echoed == .string(String(index)))
        }
    }

    @Test("a body over the in-memory limit stops with responseTooLarge")
    func responseTooLarge() async throws {
        for path in ["bytes/4096", "stream-bytes/4096"] {
            do {
                _ = try await client.request(HTTPBin.endpoint(path), options: RequestOptions(maximumResponseSize: 1024))
                Issue.record("\(path): the limit was not enforced")
            } catch {
                guard case .responseTooLarge(let limit, _) = error else {
                    Issue.record("\(path): expected responseTooLarge, got \(error)")
                    continue
                }
                #expect(limit == 1024)
            }
        }
    }

    @Test("a closed port is a transport error with the URLError code")
    func transportError() async throws {
        let endpoint = TestEndpoint(baseURL: try #require(URL(string: "http://127.0.0.1:1")), path: "x")
        do {
            _ = try await client.request(endpoint)
            Issue.record("a closed port answered")
        } catch {
            guard case .transport(let urlError) = error else {
                Issue.record("expected transport, got \(error)")
                return
            }
            #expect(urlError.code == .cannotConnectToHost)
            #expect(
                "\(error)".contains("Transport failed with URLError code \(URLError.Code.cannotConnectToHost.rawValue)")
            )
        }
    }

    @Test("the completion-handler API against a real server")
    func completionHandler() async throws {
        let queue = DispatchQueue(label: "nal.tests.integration")
        let result: Result<Response, NALError> = await withCheckedContinuation { continuation in
            client.request(HTTPBin.endpoint("status/201", validation: .customCodes([201])), callbackQueue: queue) {
                continuation.resume(returning: $0)
            }
        }
        #expect(try result.get().statusCode == 201)
    }

    @Test("uploads of bytes and of a file arrive exactly; a missing file is a typed error before anything is sent")
    func uploads() async throws {
        let bytes = try await client.request(
            HTTPBin.endpoint(
                "anything", method: .post, requestType: .uploadData(Data("bytes up".utf8)),
                headers: ["Content-Type": "text/plain"]),
            as: Echo.self)
        #expect(bytes.data == "bytes up")

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nal-upload-\(UUID().uuidString).txt")
        try Data("file up".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fromFile = try await client.request(
            HTTPBin.endpoint(
                "anything", method: .put, requestType: .uploadFile(file), headers: ["Content-Type": "text/plain"]),
            as: Echo.self)
        #expect(fromFile.data == "file up")

        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("nal-missing-\(UUID().uuidString)")
        do {
            _ = try await client.request(HTTPBin.endpoint("anything", method: .put, requestType: .uploadFile(missing)))
            Issue.record("a missing file was uploaded")
        } catch {
            guard case .file(let failure) = error else {
                Issue.record("expected a file failure, got \(error)")
                return
            }
            #expect(failure.problem == .missing && failure.role == .uploadSource && failure.url == missing)
        }
    }
}
