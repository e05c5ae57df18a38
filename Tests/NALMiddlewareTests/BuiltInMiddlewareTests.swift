import Foundation
import NALCore
import NALLogging
import NALMiddleware
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("NetworkActivityMiddleware")
struct NetworkActivityMiddlewareTests {
    @Test("began and ended are paired on success, on error and on cancellation")
    func paired() async throws {
        let events = Locked<[NetworkActivityMiddleware.Change]>([])
        let activity = NetworkActivityMiddleware { change, _ in events.withLock { $0.append(change) } }
        _ = try await Client<TestEndpoint>(middleware: [activity], transport: MemoryTransport()).request(TestEndpoint())
        _ = try? await Client<TestEndpoint>(middleware: [activity], transport: URLSessionTransport()).request(
            TestEndpoint(baseURL: try #require(URL(string: "http://127.0.0.1:1"))))
        let slow = Client<TestEndpoint>(middleware: [activity], transport: MemoryTransport(delay: .seconds(30)))
        let task = Task { try await slow.request(TestEndpoint()) }
        while events.withLock({ $0.count }) < 5 { try await Task.sleep(for: .milliseconds(5)) }
        task.cancel()
        _ = try? await task.value
        #expect(events.withLock { $0 } == [.began, .ended, .began, .ended, .began, .ended])
        #expect(activity.activeCount == 0)
    }

    @Test("busy changes only when the count goes 0→1 and 1→0, in order, with 20 requests overlapping")
    func aggregate() async throws {
        let changes = Locked<[Bool]>([])
        let activity = NetworkActivityMiddleware(
            { _, _ in }, busyChanged: { busy in changes.withLock { $0.append(busy) } })
        let client = Client<TestEndpoint>(middleware: [activity], transport: MemoryTransport(delay: .milliseconds(100)))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 { group.addTask { _ = try await client.request(TestEndpoint()) } }
            try await group.waitForAll()
        }
        _ = try await client.request(TestEndpoint())
        var waited = 0
        while changes.withLock({ $0.count }) < 4, waited < 200 {
            try await Task.sleep(for: .milliseconds(5))
            waited += 1
        }
        #expect(changes.withLock { $0 } == [true, false, true, false])
    }
}

@Suite("LoggingMiddleware")
struct LoggingMiddlewareTests {
    @Test("requests and responses are logged under dev.nal request/response, with secrets redacted")
    func logsRedacted() async throws {
        let logging = LoggingMiddleware(options: [.headers, .bodies, .timing])
        let endpoint = TestEndpoint(
            path: "login", method: .post,
            requestType: .compositeParameters(
                bodyParameters: ["user": "ada", "password": "hunter2"], bodyEncoding: JSONEncoding.default,
                urlParameters: ["access_token": "tok-1", "page": 2]),
            headers: ["Authorization": "Bearer abc.def", "X-Trace": "logging-test"])
        try await LogCapture.capture("dev.nal:request=info,dev.nal:response=info,*=off") { sink in
            _ = try await Client<TestEndpoint>(middleware: [logging], transport: MemoryTransport(body: Data("{}".utf8)))
                .request(endpoint)
            let request = sink.entries(subsystem: "dev.nal", category: "request", containing: "logging-test")
            let response = sink.entries(subsystem: "dev.nal", category: "response", containing: "/v1/login")
            #expect(request.count == 1)
            #expect(response.count == 1)
            let text = (request + response).map(\.message).joined(separator: "\n")
            for secret in ["hunter2", "tok-1", "abc.def"] { #expect(!text.contains(secret), "\(secret) leaked") }
            #expect(text.contains("→ POST https://api.example.com/v1/login?access_token=<redacted>&page=2"))
            #expect(text.contains("Authorization: Bearer <redacted>"))
            #expect(text.contains(#"{"password":"<redacted>","user":"ada"}"#))
            #expect(
                text.contains("← 200 POST https://api.example.com/v1/login?access_token=<redacted>&page=2, 2 bytes in ")
            )
        }
    }

    @Test(
        "a secret echoed inside a JSON string (httpbin's data) is redacted in the logged body, over both transports",
        .enabled(if: HTTPBin.url != nil, HTTPBin.skipReason))
    func echoedSecretRedacted() async throws {
        var transports: [any Transport] = [URLSessionTransport()]
        #if os(Linux)
            transports.append(try CurlTransport())
        #endif
        // As text, httpbin echoes the body as a string in "data"; untyped, URLSession sends it as a form, and
        // httpbin echoes it as the key of "form".
        for transport in transports {
            for contentType in ["text/plain", nil] {
                let probe = UUID().uuidString
                let endpoint = TestEndpoint(
                    baseURL: try #require(HTTPBin.url), path: "anything/\(probe)", method: .post,
                    requestType: .data(Data(#"{"user":"ada","password":"hunter2-\#(probe)"}"#.utf8)),
                    headers: contentType.map { ["Content-Type": $0] })
                try await LogCapture.capture("dev.nal:request=info,dev.nal:response=info,*=off") { sink in
                    let client = Client<TestEndpoint>(
                        middleware: [LoggingMiddleware(options: [.bodies])], transport: transport)
                    let response = try await client.request(endpoint)
                    #expect(String(decoding: response.data, as: UTF8.self).contains("hunter2-\(probe)"))
                    let logged = sink.entries(subsystem: "dev.nal", category: "response", containing: probe)
                    let text = logged.map(\.message).joined(separator: "\n")
                    #expect(text.contains(#"\"password\":\"<redacted>\""#), "\(type(of: transport)): \(text)")
                    #expect(!text.contains("hunter2"), "\(type(of: transport)) logged the echoed secret")
                }
            }
        }
    }

    @Test("a failure is logged with the request's method and URL")
    func logsFailures() async throws {
        try await LogCapture.capture("dev.nal:response=info,*=off") { sink in
            _ = try? await Client<TestEndpoint>(middleware: [LoggingMiddleware()], transport: URLSessionTransport())
                .request(TestEndpoint(baseURL: try #require(URL(string: "http://127.0.0.1:1")), path: "down"))
            let lines = sink.messages(subsystem: "dev.nal", category: "response")
            #expect(lines.contains { $0.hasPrefix("GET http://127.0.0.1:1/down failed: Transport failed") })
        }
    }
}

@Suite("DefaultHeadersMiddleware")
struct DefaultHeadersMiddlewareTests {
    @Test("User-Agent, Accept-Language and Accept-Encoding are added; an endpoint's own header wins")
    func headers() async throws {
        let transport = MemoryTransport()
        let client = Client<TestEndpoint>(middleware: [DefaultHeadersMiddleware()], transport: transport)
        _ = try await client.request(TestEndpoint(headers: ["accept-language": "fr"]))
        let sent = try #require(transport.requests.first)
        #expect(sent.value(forHTTPHeaderField: "User-Agent") == DefaultHeadersMiddleware.defaultUserAgent)
        #expect(sent.value(forHTTPHeaderField: "Accept-Language") == "fr")
        #expect(sent.value(forHTTPHeaderField: "Accept-Encoding") == "gzip, deflate")
        #expect(
            DefaultHeadersMiddleware.defaultUserAgent.wholeMatch(
                of: /nal\/\d+\.\d+\.\d+ \(\w+ \d+\.\d+\.\d+; swift \d\.\d\)/) != nil)
    }

    @Test("the default Accept-Language starts at q=1.0 and goes down by 0.1; nil values add no header")
    func defaultValues() async throws {
        let languages = DefaultHeadersMiddleware.defaultAcceptLanguage.components(separatedBy: ", ")
        #expect((1...6).contains(languages.count))
        for (index, language) in languages.enumerated() {
            #expect(language.hasSuffix(";q=\(["1.0", "0.9", "0.8", "0.7", "0.6", "0.5"][index])"), "\(languages)")
        }
        let transport = MemoryTransport()
        let client = Client<TestEndpoint>(
            middleware: [DefaultHeadersMiddleware(userAgent: "x/1", acceptLanguage: nil, acceptEncoding: nil)],
            transport: transport)
        _ = try await client.request(TestEndpoint())
        let sent = try #require(transport.requests.first)
        #expect(sent.value(forHTTPHeaderField: "User-Agent") == "x/1")
        #expect(sent.value(forHTTPHeaderField: "Accept-Language") == nil)
        #expect(sent.value(forHTTPHeaderField: "Accept-Encoding") == nil)
    }

    @Test("httpbin: /headers echoes what the middleware added", .enabled(if: HTTPBin.url != nil, HTTPBin.skipReason))
    func againstHTTPBin() async throws {
        struct Headers: Decodable { var headers: [String: String] }
        let client = Client<TestEndpoint>(middleware: [DefaultHeadersMiddleware(acceptLanguage: "de-CH;q=1.0")])
        let echo = try await client.request(
            TestEndpoint(baseURL: try #require(HTTPBin.url), path: "headers"), as: Headers.self)
        #expect(echo.headers["User-Agent"] == DefaultHeadersMiddleware.defaultUserAgent)
        #expect(echo.headers["Accept-Language"] == "de-CH;q=1.0")
        #expect(echo.headers["Accept-Encoding"] == "gzip, deflate")
    }

    @Test(
        "httpbin: the whole set works together through URLSessionTransport",
        .enabled(if: HTTPBin.url != nil, HTTPBin.skipReason))
    func togetherAgainstHTTPBin() async throws {
        let url = try #require(HTTPBin.url)
        let events = Locked(0)
        let client = Client<AuthorizedEndpoint>(
            middleware: [
                NetworkActivityMiddleware { _, _ in events.withLock { $0 += 1 } }, LoggingMiddleware(),
                RetryMiddleware(baseDelay: .milliseconds(1)), DefaultHeadersMiddleware(),
                AccessTokenMiddleware(token: { _ in "together" }),
            ])
        let response = try await client.request(AuthorizedEndpoint(base: TestEndpoint(baseURL: url, path: "bearer")))
        #expect(try response.json() == ["authenticated": true, "token": "together"])
        #expect(events.withLock { $0 } == 2)
    }
}
