import Foundation
import NALCore
import NALLogging
import NALTestSupport
import Testing

@testable import NALStubbing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport that answers with a fixed response, headers included.
struct FixedTransport: Transport {
    var status = 200
    var headers: [String: String] = ["Content-Type": "application/json"]
    var body: Data

    func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
        guard let url = request.url,
            let http = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)
        else { throw .transport(URLError(.badURL)) }
        return Response(
            request: request, httpResponse: http, data: body, timing: ResponseTiming(start: Date(), duration: .zero))
    }
}

@Suite("Recording: what reaches the cassette, and at what cost")
struct RecordingSafetyTests {
    @Test("redaction never corrupts recorded data: author and authority stay, numbers stay, replay is valid JSON")
    func noCorruption() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cassette = directory.appendingPathComponent("books.har")
        let body = Data(
            #"{"author":"ada lovelace","authority":"royal society","count":1234,"id":51234,"pin":"1234","ref":"A51234"}"#
                .utf8)
        let recorder = RecordingTransport(cassette: cassette, mode: .recordAll, wrapping: FixedTransport(body: body))
        let endpoint = TestEndpoint(
            path: "books", method: .post,
            requestType: .parameters(["author": "ada lovelace", "auth_pin": 1234], encoding: JSONEncoding.default))
        _ = try await Client<TestEndpoint>(transport: recorder).request(endpoint)
        let player = RecordingTransport(cassette: cassette, mode: .replayOnly, wrapping: OfflineTransport())
        let replayed = try await Client<TestEndpoint>(transport: player).request(endpoint)
        let json = try JSONSerialization.jsonObject(with: replayed.data) as? [String: Any]
        #expect(json?["author"] as? String == "ada lovelace")
        #expect(json?["authority"] as? String == "royal society")
        #expect(json?["count"] as? Int == 1234 && json?["id"] as? Int == 51234, "numbers are never touched")
        #expect(json?["pin"] as? String == "<redacted>", "the secret the request sent is removed where echoed")
        #expect(json?["ref"] as? String == "A51234", "a longer word that contains the secret is not it")
    }

    @Test("a multipart request keeps its file bytes in the cassette; its secret parts, and their echoes, do not")
    func multipartRecorded() throws {
        let file = Data([0xFF, 0x00, 0x9C, 0x42])
        let body =
            Data(
                ("--B\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nhunter2-secret\r\n"
                    + "--B\r\nContent-Disposition: form-data; name=\"f\"; filename=\"f.bin\"\r\n\r\n").utf8)
            + file + Data("\r\n--B--\r\n".utf8)
        let entry = HARDocument.Entry.recorded(
            method: "POST", url: URL(string: "https://h.example/up")!,
            requestHeaders: ["Content-Type": "multipart/form-data; boundary=B"], requestBody: body, status: 200,
            responseHeaders: ["Content-Type": "text/plain"], responseBody: Data("you sent hunter2-secret".utf8),
            started: Date(), duration: .zero)
        let sent = try #require(entry.request.postData)
        #expect(sent.encoding == "base64", "bytes that are not text are kept whole")
        let decoded = try #require(Data(base64Encoded: sent.text))
        #expect(decoded.firstRange(of: Data("hunter2".utf8)) == nil)
        #expect(decoded.firstRange(of: Data("name=\"password\"\r\n\r\n<redacted>\r\n".utf8)) != nil)
        #expect(decoded.firstRange(of: file) != nil)
        #expect(entry.response.content.text == "you sent <redacted>")
    }

    @Test("an entry's URL, query list, redirect target and echoed cookie are redacted; its times are exact")
    func recordedEntryFields() throws {
        let entry = HARDocument.Entry.recorded(
            method: "GET", url: try #require(URL(string: "https://h.example/login?user=ada&token=QUERY0042")),
            requestHeaders: [:], requestBody: nil, status: 302,
            responseHeaders: [
                "Location": "https://h.example/home?access_token=LOCATION0042&tab=1",
                "Set-Cookie": "session=COOKIE0042; Path=/; HttpOnly", "Content-Type": "text/plain",
            ],
            responseBody: Data("your session is COOKIE0042".utf8),
            started: Date(timeIntervalSince1970: 1_700_000_000.25), duration: .milliseconds(1250))
        #expect(entry.request.url == "https://h.example/login?user=ada&token=%3Credacted%3E")
        #expect(
            entry.request.queryString == [
                HARDocument.NameValue(name: "user", value: "ada"),
                HARDocument.NameValue(name: "token", value: "<redacted>"),
            ])
        #expect(entry.response.redirectURL == "https://h.example/home?access_token=%3Credacted%3E&tab=1")
        #expect(entry.response.content.text == "your session is <redacted>", "the cookie this response set")
        #expect(entry.startedDateTime == "2023-11-14T22:13:20.250Z")
        #expect(entry.time == 1250 && entry.timings.wait == 1250)
        let text = String(decoding: HARDocument(log: HARDocument.Log(entries: [entry])).encoded(), as: UTF8.self)
        #expect(text.contains(#""url" : "https://h.example/login?user=ada"#), "URLs are written without \\/")
        for secret in ["QUERY0042", "LOCATION0042", "COOKIE0042"] { #expect(!text.contains(secret), "\(secret)") }
    }

    @Test("secrets after ; in the query, and in the URL a redirect ended at, are learned and scrubbed where echoed")
    func learnedURLSecrets() async throws {
        struct Redirected: Transport {
            func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
                let final = URL(string: "https://h.example/landing?sig=SIGNED0042")!
                let http = HTTPURLResponse(
                    url: final, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": "text/plain"])!
                let echo = "query \(request.url?.query ?? "") landed with SIGNED0042"
                return Response(
                    request: request, httpResponse: http, data: Data(echo.utf8),
                    timing: ResponseTiming(start: Date(), duration: .zero))
            }
        }
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cassette = directory.appendingPathComponent("learned.har")
        let recorder = RecordingTransport(cassette: cassette, mode: .recordAll, wrapping: Redirected())
        let endpoint = TestEndpoint(path: "go")
        var request = try endpoint.urlRequest()
        request.url = URL(string: "https://h.example/go?a=1;token=SEMI0042")
        _ = try await recorder.send(request, context: TransportContext(endpoint: endpoint))
        let text = try String(contentsOf: cassette, encoding: .utf8)
        #expect(!text.contains("SEMI0042"), "the ;token value")
        #expect(!text.contains("SIGNED0042"), "the final URL's signature")
        #expect(text.contains("landed with <redacted>"))
    }

    @Test(
        "echoes are scrubbed whole: a bearer credential alone, each folded Set-Cookie, a percent-encoded secret, and a secret that holds a shorter one"
    )
    func echoedSecretForms() throws {
        let entry = HARDocument.Entry.recorded(
            method: "GET", url: try #require(URL(string: "https://h.example/me")),
            requestHeaders: [
                "Authorization": "Bearer ABCD0042-WXYZ9999", "X-Api-Key": "ABCD0042", "Cookie": "sid=c00kie/0042+x",
            ],
            requestBody: nil, status: 200,
            responseHeaders: [
                "Set-Cookie": "a=FIRST0042; Path=/, b=SECOND0042; Path=/", "Content-Type": "text/plain",
            ],
            responseBody: Data(
                "token ABCD0042-WXYZ9999, key ABCD0042, sid c00kie%2F0042%2Bx, cookies FIRST0042 SECOND0042".utf8),
            started: Date(), duration: .zero)
        #expect(
            entry.response.content.text
                == "token <redacted>, key <redacted>, sid <redacted>, cookies <redacted> <redacted>")
    }

    @Test(".once whose first call fails leaves no cassette, so the next run records instead of failing to replay")
    func onceAfterAFailure() async throws {
        struct Failing: Transport {
            func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
                throw .transport(URLError(.cannotConnectToHost))
            }
        }
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cassette = directory.appendingPathComponent("first.har")
        let endpoint = TestEndpoint(path: "first")
        let failing = RecordingTransport(cassette: cassette, mode: .once, wrapping: Failing())
        await #expect(throws: NALError.self) { try await Client<TestEndpoint>(transport: failing).request(endpoint) }
        #expect(!FileManager.default.fileExists(atPath: cassette.path), "an empty cassette was left behind")
        // An empty file (left by an older NAL, or by hand) counts as no cassette too.
        try Data().write(to: cassette)
        let recorder = RecordingTransport(
            cassette: cassette, mode: .once, wrapping: FixedTransport(body: Data(#"{"ok":true}"#.utf8)))
        #expect(recorder.mode == .recordAll)
        _ = try await Client<TestEndpoint>(transport: recorder).request(endpoint)
        let player = RecordingTransport(cassette: cassette, mode: .once, wrapping: OfflineTransport())
        #expect(try await Client<TestEndpoint>(transport: player).request(endpoint).data == Data(#"{"ok":true}"#.utf8))
    }

    @Test("two recorders of one file keep every entry; a file another process changed is not overwritten")
    func sharedCassette() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cassette = directory.appendingPathComponent("shared.har")
        let first = RecordingTransport(
            cassette: cassette, mode: .recordAll, wrapping: FixedTransport(body: Data("1".utf8)))
        let second = RecordingTransport(
            cassette: cassette, mode: .recordAll, wrapping: FixedTransport(body: Data("2".utf8)))
        for index in 0..<3 {
            _ = try await Client<TestEndpoint>(transport: first).request(TestEndpoint(path: "a\(index)"))
            _ = try await Client<TestEndpoint>(transport: second).request(TestEndpoint(path: "b\(index)"))
        }
        let entries = try HARReader.entries(of: Data(contentsOf: cassette), file: cassette)
        #expect(entries.map(\.url.lastPathComponent).sorted() == ["a0", "a1", "a2", "b0", "b1", "b2"])
        // Someone else rewrites the file: the next entry is refused, and what they wrote stays.
        let foreign = HARDocument(log: HARDocument.Log(entries: [])).encoded()
        try foreign.write(to: cassette)
        _ = try await Client<TestEndpoint>(transport: first).request(TestEndpoint(path: "late"))
        #expect(try Data(contentsOf: cassette) == foreign)
        #expect(first.recordingErrors.last?.message.contains("changed on disk") == true)
    }

    @Test("a secret shorter than 4 characters is redacted where it is named, but not scrubbed from everything else")
    func shortSecretsStay() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cassette = directory.appendingPathComponent("short.har")
        let body = Data(#"{"page":"7","of":"9","auth_pin":"7"}"#.utf8)
        let recorder = RecordingTransport(cassette: cassette, mode: .recordAll, wrapping: FixedTransport(body: body))
        let endpoint = TestEndpoint(
            path: "pages", method: .post, requestType: .parameters(["auth_pin": "7"], encoding: JSONEncoding.default))
        _ = try await Client<TestEndpoint>(transport: recorder).request(endpoint)
        let player = RecordingTransport(cassette: cassette, mode: .replayOnly, wrapping: OfflineTransport())
        let replayed = try await Client<TestEndpoint>(transport: player).request(endpoint)
        let json = try #require(try JSONSerialization.jsonObject(with: replayed.data) as? [String: String])
        #expect(json == ["page": "7", "of": "9", "auth_pin": "<redacted>"], "a lone 7 is too common to be the secret")
    }

    @Test("appending costs the same whatever the cassette's size: what was written is never rewritten")
    func appendOnly() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cassette = directory.appendingPathComponent("long.har")
        let recorder = RecordingTransport(
            cassette: cassette, mode: .recordAll, wrapping: FixedTransport(body: Data(count: 100_000)))
        let client = Client<TestEndpoint>(transport: recorder)
        for index in 0..<20 { _ = try await client.request(TestEndpoint(path: "item/\(index)")) }
        let before = try Data(contentsOf: cassette)
        let inode = try FileManager.default.attributesOfItem(atPath: cassette.path)[.systemFileNumber] as? NSNumber
        let trailer = Data("\n    ]\n  }\n}\n".utf8)
        #expect(before.suffix(trailer.count) == trailer)
        _ = try await client.request(TestEndpoint(path: "item/last"))
        let after = try Data(contentsOf: cassette)
        let inodeAfter = try FileManager.default.attributesOfItem(atPath: cassette.path)[.systemFileNumber] as? NSNumber
        #expect(inode != nil && inode == inodeAfter, "written in place, not rewritten and renamed")
        #expect(after.prefix(before.count - trailer.count) == before.prefix(before.count - trailer.count))
        try HARExportTests.validate(after)
        #expect(String(decoding: recorder.exportHAR(), as: UTF8.self).contains("item/last"))
    }

    @Test(
        "a cassette that cannot be written fails the call before anything is sent",
        .enabled(if: FaultServer.url != nil, FaultServer.skipReason)
    )
    func unwritableCassette() async throws {
        let url = try #require(FaultServer.url)
        let probe = FaultServer.probe()
        let recorder = RecordingTransport(cassette: URL(fileURLWithPath: "/dev/null/cassette.har"), mode: .recordAll)
        do {
            _ = try await Client<TestEndpoint>(transport: recorder).request(
                TestEndpoint(
                    baseURL: url, path: "echo",
                    requestType: .parameters(["probe": .string(probe)], encoding: URLEncoding.queryString)))
            Issue.record("the call went ahead without a cassette to record it")
        } catch {
            #expect("\(error)".contains("cannot be written"))
        }
        #expect(try await FaultServer.journal(probe: probe).isEmpty, "nothing was sent")
    }

    @Test(
        "cookies a server sets never reach the cassette, even when a later request's echo shows them",
        .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
    func cookiesStayOut() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let shared = URLSessionConfiguration.ephemeral
        for wrapped in [nil, URLSessionTransport(configuration: shared) as (any Transport)?] {
            let key = FaultServer.probe()
            let cassette = directory.appendingPathComponent("cookies-\(key).har")
            let recorder = RecordingTransport(cassette: cassette, mode: .recordAll, wrapping: wrapped)
            let client = Client<TestEndpoint>(transport: recorder)
            _ = try await client.request(FaultServer.endpoint("set-cookie", query: ["key": .string(key)]))
            let echo = try await client.request(FaultServer.endpoint("echo"))
            #expect(echo.string()?.contains("cookie-\(key)-77") == true, "the session sent the cookie back")
            let text = try String(contentsOf: cassette, encoding: .utf8)
            #expect(
                !text.contains("cookie-\(key)-77"),
                "a cookie value reached the cassette (\(wrapped == nil ? "own" : "shared") store)")
        }
    }
}
