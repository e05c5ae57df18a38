import Dispatch
import Foundation
import NALCore
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The transport (URLSession, or CurlTransport with NAL_TEST_TRANSPORT=curl) against a server that misbehaves on
/// purpose: what httpbin cannot do.
@Suite("Integration: fault server", .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
struct FaultServerTests {
    typealias Echo = FaultServer.Echo

    let client = Client<TestEndpoint>(transport: TestTransports.make())
    static let body39 = Data("0123456789012345678901234567890123456AB".utf8)

    func expectError(
        _ endpoint: TestEndpoint, client: Client<TestEndpoint>? = nil, options: RequestOptions = RequestOptions(),
        sourceLocation: SourceLocation = #_sourceLocation, _ check: (NALError) -> Bool
    ) async {
        do {
            let response = try await (client ?? self.client).request(endpoint, options: options)
            Issue.record("expected an error, got status \(response.statusCode)", sourceLocation: sourceLocation)
        } catch {
            #expect(check(error), "unexpected \(error)", sourceLocation: sourceLocation)
        }
    }

    // MARK: Request smuggling (item 3)

    @Test("a Content-Length set by the endpoint or a hook never reaches the wire; the next call gets its own answer")
    func smuggling() async throws {
        let probe = FaultServer.probe()
        await expectError(
            FaultServer.endpoint(
                "echo", method: .post, probe: probe, requestType: .data(Self.body39),
                headers: ["Content-Length": "3"])
        ) { error in
            if case .invalidRequest(.framingHeader("Content-Length")) = error { return true }
            return false
        }
        // The hook forges the framing of POSTs only, so the client's next GET is an ordinary call.
        let hooked = Client<TestEndpoint>(
            transport: TestTransports.make(),
            willSend: { request, _ in
                var request = request
                if request.httpMethod == "POST" { request.setValue("3", forHTTPHeaderField: "Content-Length") }
                return request
            })
        let smuggled = FaultServer.endpoint(
            "echo", method: .post, query: ["probe": .string(probe)],
            requestType: .compositeData(Self.body39, urlParameters: ["probe": .string(probe)]))
        await expectError(smuggled, client: hooked) { error in
            if case .invalidRequest(.framingHeader("Content-Length")) = error { return true }
            return false
        }
        #expect(try await FaultServer.journal(probe: probe).isEmpty, "a request with a forged Content-Length was sent")

        let next = try await hooked.request(FaultServer.endpoint("fast"), options: RequestOptions())
        #expect(next.string() == "fast")
    }

    // MARK: Redirects (items 4 and 5)

    @Test("calls cancelled as they start end at once with .cancelled, before or after their task exists")
    func cancelledAsTheyStart() async {
        let client = self.client
        let clock = ContinuousClock()
        let start = clock.now
        // A task is created and resumed on the delegate queue, after the call begins: cancellations at random
        // moments land before it exists, between, and after it runs. A call that is not really cancelled waits for
        // the 20 s answer, far past any bound a loaded machine needs.
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<160 {
                if index >= 16 { await group.next() }
                group.addTask {
                    let call = Task { try await client.request(FaultServer.endpoint("delay", query: ["ms": 20_000])) }
                    try? await Task.sleep(for: .microseconds(Int64.random(in: 0...1_500)))
                    call.cancel()
                    let cancelled = clock.now
                    do {
                        let response = try await call.value
                        Issue.record("a cancelled call returned \(response.statusCode)")
                    } catch {
                        guard let error = error as? NALError, case .cancelled = error else {
                            Issue.record("a cancelled call failed with \(error), not .cancelled")
                            return
                        }
                    }
                    let waited = clock.now - cancelled
                    #expect(waited < Timing.bound(.seconds(2)), "a call ended \(waited) after it was cancelled")
                }
            }
        }
        // Room for the scheduling of 160 calls beside a busy suite (3.7 s seen in CI).
        #expect(clock.now - start < Timing.bound(.seconds(10)))
    }

    @Test("a 2 MB POST goes out at once, with no Expect: 100-continue, and a field with an empty value stays empty")
    func bigPostAndEmptyField() async throws {
        let body = Data(repeating: UInt8(ascii: "a"), count: 2_000_000)
        let echo = try await client.request(
            FaultServer.endpoint("echo", method: .post, requestType: .data(body), headers: ["X-Empty": ""]),
            as: Echo.self)
        #expect(echo.bodyLength == body.count)
        #expect(echo.header("Expect") == nil)
        #expect(echo.header("X-Empty") == "")
        // A difference the porting table states: FoundationNetworking calls an untyped POST body a form.
        #expect(echo.header("Content-Type") == (TestTransports.isCurl ? nil : "application/x-www-form-urlencoded"))
    }

    @Test("a URL with no host for Foundation (http:///host:port/x) is refused, sent or as a redirect's Location")
    func urlWithoutHost() async throws {
        let server = try #require(FaultServer.url)
        let key = FaultServer.probe()
        let hostless = try #require(URL(string: "http:///127.0.0.1:\(server.port ?? 0)/echo?probe=\(key)"))
        #expect(hostless.host == nil)
        // Straight to the transport: the Client refuses such a base URL before (baseURLMissingHost).
        let sent = await #expect(throws: NALError.self) {
            try await client.transport.send(
                URLRequest(url: hostless), context: TransportContext(endpoint: TestEndpoint()))
        }
        guard case .invalidRequest(.invalidURL) = sent else {
            Issue.record("expected invalidURL, got \(String(describing: sent))")
            return
        }
        #expect(try await FaultServer.journal(probe: key).isEmpty, "a request went out")
        let followed = await #expect(throws: NALError.self) {
            try await client.request(
                FaultServer.endpoint(
                    "redirect",
                    query: ["status": 302, "location": .string(hostless.absoluteString)]))
        }
        guard case .invalidRequest(.invalidURL) = followed else {
            Issue.record("expected invalidURL, got \(String(describing: followed))")
            return
        }
        // The redirect itself carries the probe in its query; a followed one would reach /echo.
        let echoes = try await FaultServer.journal(probe: key).filter { $0.target.hasPrefix("/echo") }
        #expect(echoes.isEmpty, "the redirect was followed")
    }

    @Test(
        "a Content-Length that is not one number is refused, not used to frame the body by one of its values",
        // (A value with no digit at all, "x", libcurl refuses itself, with an error of its own.)
        arguments: ["value=2&value=4", "value=2%2C%204", "value=0x2", "value=%2B4", "value=4&value=5x"])
    func contentLengthNotOneNumber(query: String) async throws {
        try await expectLengthRefused(query: query, saying: "is not one length")
    }

    @Test(
        "a Content-Length past 64 bits is refused, not ignored: a body cut short by a close would pass for whole",
        arguments: ["9223372036854775808", "99999999999999999999999"])
    func contentLengthPastLargest(value: String) async throws {
        try await expectLengthRefused(query: "value=\(value)", saying: "(\(value)) is past the largest length")
    }

    /// Expects `/lengths?query` to fail as a response that cannot be parsed, its message saying `saying`.
    private func expectLengthRefused(query: String, saying: String) async throws {
        let server = try #require(FaultServer.url)
        let url = try #require(URL(string: "\(server.absoluteString)/lengths?\(query)"))
        let error = await #expect(throws: NALError.self) {
            try await client.transport.send(URLRequest(url: url), context: TransportContext(endpoint: TestEndpoint()))
        }
        guard case .transport(let urlError) = error else {
            Issue.record("\(query): expected a transport error, got \(String(describing: error))")
            return
        }
        #expect(urlError.code == .cannotParseResponse, "\(query)")
        #expect(error?.description.contains(saying) == true, "\(query): \(String(describing: error))")
    }

    @Test("the same Content-Length twice, or as a list of one number, frames the body as one field would")
    func contentLengthRepeated() async throws {
        let server = try #require(FaultServer.url)
        for query in ["value=4&value=4", "value=4%2C%204", "value=4&value=04"] {
            let url = try #require(URL(string: "\(server.absoluteString)/lengths?\(query)"))
            let response = try await client.transport.send(
                URLRequest(url: url), context: TransportContext(endpoint: TestEndpoint()))
            #expect(response.string() == "abcd", "\(query)")
        }
    }

    @Test("307 and 308 keep the method and the body, same origin", arguments: [307, 308])
    func redirectKeepsBody(status: Int) async throws {
        let probe = FaultServer.probe()
        let endpoint = FaultServer.endpoint(
            "redirect", method: .post,
            requestType: .compositeData(
                Self.body39,
                urlParameters: ["status": .int(status), "location": .string("/echo?probe=\(probe)")]),
            headers: ["Content-Type": "text/plain"])
        let echo = try await client.request(endpoint, as: Echo.self)
        #expect(echo.method == "POST")
        #expect(echo.bodyLength == 39)
        #expect(echo.body == String(decoding: Self.body39, as: UTF8.self))
        #expect(echo.header("Content-Type") == "text/plain")
    }

    @Test("307 and 308 to another origin keep the body and drop every credential", arguments: [307, 308])
    func crossOriginRedirectKeepsBodyDropsCredentials(status: Int) async throws {
        let endpoint = FaultServer.endpoint(
            "redirect", method: .put,
            requestType: .compositeData(
                Self.body39,
                urlParameters: ["status": .int(status), "location": .string(FaultServer.otherOrigin + "/echo")]),
            headers: [
                "Authorization": "Bearer s3cr3t", "Cookie": "sid=1", "X-Api-Key": "k", "X-Session-Token": "t",
                "X-Keep": "1",
            ])
        let echo = try await client.request(endpoint, as: Echo.self)
        #expect(echo.header("Host")?.hasPrefix("localhost") == true)
        #expect(echo.method == "PUT")
        #expect(echo.bodyLength == 39)
        for name in ["Authorization", "Cookie", "X-Api-Key", "X-Session-Token"] {
            #expect(echo.header(name) == nil, "\(name) crossed origins")
        }
        #expect(echo.header("X-Keep") == "1")
    }

    @Test(
        "301 and 302 turn POST into GET, 303 turns PUT into GET, without body or Content-Type",
        arguments: [(301, HTTPMethod.post), (302, .post), (303, .put), (303, .post)])
    func redirectToGet(status: Int, method: HTTPMethod) async throws {
        let endpoint = FaultServer.endpoint(
            "redirect", method: method,
            requestType: .compositeData(
                Self.body39, urlParameters: ["status": .int(status), "location": "/echo"]),
            headers: ["Content-Type": "text/plain"])
        let echo = try await client.request(endpoint, as: Echo.self)
        #expect(echo.method == "GET")
        #expect(echo.bodyLength == 0)
        #expect(echo.header("Content-Type") == nil)
    }

    @Test("a file uploaded with POST is not sent again with the GET that a 302 asks for")
    func redirectDropsUploadedFile() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("body.bin")
        try Self.body39.write(to: file)
        let echo = try await client.request(
            FaultServer.endpoint("redirect", method: .post, requestType: .uploadFile(file)), as: Echo.self)
        #expect(echo.method == "GET")
        #expect(echo.bodyLength == 0)
    }

    @Test("a file upload on a kept-alive connection that the server closes is sent again, whole, on a new one")
    func uploadRetriedOnFreshConnection() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("body.bin")
        try Self.body39.write(to: file)
        for _ in 0..<3 {
            // The connection looks alive for 300 ms, then the server closes it without reading the upload sent on it.
            _ = try await client.request(FaultServer.endpoint("close-soon", query: ["ms": 300]))
            try await Task.sleep(for: .milliseconds(50))
            let echo = try await client.request(
                FaultServer.endpoint("echo", method: .post, requestType: .uploadFile(file)), as: Echo.self)
            #expect(echo.body == String(decoding: Self.body39, as: UTF8.self))
        }
    }

    @Test("a redirect loop ends with httpTooManyRedirects after 20 hops; doNotFollow returns the 3xx")
    func redirectLimits() async throws {
        let probe = FaultServer.probe()
        await expectError(FaultServer.endpoint("loop", probe: probe)) { error in
            guard case .transport(let urlError) = error else { return false }
            return urlError.code == .httpTooManyRedirects
        }
        #expect(try await FaultServer.journal(probe: probe).count == 21)

        let unfollowed = Client<TestEndpoint>(transport: TestTransports.make(redirectPolicy: .doNotFollow))
        let response = try await unfollowed.request(
            FaultServer.endpoint("redirect", query: ["status": 307], validation: .none))
        #expect(response.statusCode == 307)
        #expect(response.string() == "redirecting")
    }

    @Test(
        "credentials in the configuration's additional headers are sent, and never cross origins; the request's own headers win"
    )
    func configurationHeaders() async throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = [
            "Authorization": "Bearer from-config", "Cookie": "sid=config", "X-Api-Key": "config-key",
            "X-Keep": "config",
        ]
        let client = Client<TestEndpoint>(transport: URLSessionTransport(configuration: configuration))

        let direct = try await client.request(FaultServer.endpoint("echo"), as: Echo.self)
        #expect(direct.header("Authorization") == "Bearer from-config")
        #expect(direct.header("Cookie") == "sid=config")
        #expect(direct.header("X-Api-Key") == "config-key")

        let own = try await client.request(
            FaultServer.endpoint("echo", headers: ["authorization": "Bearer own"]), as: Echo.self)
        #expect(own.header("Authorization") == "Bearer own")

        let sameOrigin = try await client.request(
            FaultServer.endpoint("redirect", query: ["location": "/echo"]), as: Echo.self)
        #expect(sameOrigin.header("Authorization") == "Bearer from-config")

        let away = try await client.request(
            FaultServer.endpoint("redirect", query: ["location": .string(FaultServer.otherOrigin + "/echo")]),
            as: Echo.self)
        #expect(away.header("Host")?.hasPrefix("localhost") == true)
        for name in ["Authorization", "Cookie", "X-Api-Key"] {
            #expect(away.header(name) == nil, "\(name) from the configuration crossed origins")
        }
        #expect(away.header("X-Keep") == "config")
    }

    // MARK: Wire faults (item 15)

    @Test("a close in the middle of the body is a lost connection, with advice that says so")
    func midBodyClose() async {
        await expectError(FaultServer.endpoint("close-mid-body")) { error in
            guard case .transport(let urlError) = error else { return false }
            return urlError.code == .networkConnectionLost
                && "\(error)".contains("The connection closed before the whole response arrived")
                && !"\(error)".contains("Check that the host is reachable")
        }
    }

    @Test("bad chunking is a protocol violation")
    func badChunking() async {
        await expectError(FaultServer.endpoint("bad-chunking")) { error in
            guard case .transport(let urlError) = error else { return false }
            return urlError.code == .cannotParseResponse && "\(error)".contains("does not follow HTTP")
        }
    }

    /// On the fault server, not httpbin: its two workers are shared with the /drip download test, and a drip that
    /// waits for a worker arrives in one piece.
    @Test("a call kept in memory reports the length its head announced while it arrives, and ends at it")
    func inMemoryProgressKnowsItsLength() async throws {
        let (events, response) = try await TransferFiles.collect(
            client, FaultServer.endpoint("drip", query: ["bytes": 10, "interval_ms": 100]))
        #expect(response.data.count == 10)
        // Known from the head on, not only filled in when the call completes.
        let arriving = events.filter { $0.bytesReceived > 0 && $0.bytesReceived < 10 }
        #expect(!arriving.isEmpty, "\(events)")
        #expect(arriving.allSatisfy { $0.totalBytesToReceive == 10 }, "\(arriving)")
        #expect(events.last?.bytesReceived == 10 && events.last?.fractionCompleted == 1.0)
    }

    @Test(
        "a body that says gzip but is not, and a gzip body cut short, cannot be decoded",
        arguments: [
            "not-gzip", "truncated-gzip", "truncated-gzip-length-twice",
        ])
    func badGzip(path: String) async {
        await expectError(FaultServer.endpoint(path)) { error in
            guard case .transport(let urlError) = error else { return false }
            return urlError.code == .cannotDecodeContentData
        }
    }

    @Test(
        "a head past 256 KiB, or a line past libcurl's 100 KiB, is an error that says so, over every transport",
        arguments: [
            ["bytes": 300_000], ["bytes": 8_000_000], ["bytes": 200_000, "single": 1],
            ["bytes": 8_000_000, "single": 1],
        ] as [Parameters])
    func hugeHead(query: Parameters) async throws {
        // FoundationNetworking reported a long line as URLError -1 "Out of memory", and took a head of any size.
        let error = await #expect(throws: NALError.self) {
            try await client.request(FaultServer.endpoint("huge-head", query: query))
        }
        guard case .transport(let urlError)? = error else {
            Issue.record("expected a transport error, got \(String(describing: error))")
            return
        }
        #expect(urlError.code == .dataLengthExceedsMaximum)
        #expect(error?.description.contains("response head is larger than NAL accepts (256 KiB") == true)
        #expect(error?.description.contains("maximumResponseSize") == false)
        #expect(error?.description.lowercased().contains("out of memory") == false)
    }

    @Test("a head under 256 KiB is fine")
    func largeHeadUnderTheLimit() async throws {
        let fine = try await client.request(FaultServer.endpoint("huge-head", query: ["bytes": 100_000]))
        #expect(fine.data == Data("after a huge head".utf8))
    }

    @Test(
        "a transport error holds no secret of its URL: not in its description, its failing URL, nor what it wraps",
        arguments: [
            "http://127.0.0.1:9/x?access_token=SE01&page=2", "http://ada:SE02word@127.0.0.1:9/x",
            "http://127.0.0.1:9/x?a=1;token=SE03", "http://127.0.0.1:9/x#access_token=SE04",
        ])
    func transportErrorsHideSecrets(url: String) async throws {
        let request = URLRequest(url: try #require(URL(string: url)))
        let secret = try #require(url.firstRange(of: /SE0\d/).map { String(url[$0]) })
        do {
            _ = try await client.transport.send(request, context: TransportContext(endpoint: TestEndpoint()))
            Issue.record("a closed port answered")
        } catch {
            /// Every text an error carries, as a caller could print it: its description, and each userInfo value of
            /// it and of the errors it wraps.
            func texts(of error: any Error, depth: Int = 0) -> [String] {
                var found = ["\(error)", String(reflecting: error)]
                guard depth < 6 else { return found }
                let info = (error as NSError).userInfo
                for (key, value) in info {
                    found.append("\(key)=\(value)")
                    if let wrapped = value as? any Error { found += texts(of: wrapped, depth: depth + 1) }
                }
                return found
            }
            var all = texts(of: error)
            if case .transport(let urlError) = error {
                all += texts(of: urlError) + [urlError.failingURL?.absoluteString ?? ""]
            }
            for text in all { #expect(!text.contains(secret), "\(text)") }
        }
    }

    @Test("with an in-memory limit larger than memory, a large body is kept and a huge announced one fails, no crash")
    func limitLargerThanMemory() async {
        // In a child process: a reservation the system refuses stops the process.
        await inChildProcess {
            await #expect(processExitsWith: .success) {
                let client = Client<TestEndpoint>(transport: TestTransports.make())
                let unlimited = RequestOptions(maximumResponseSize: .max)
                do {
                    let chunked = FaultServer.endpoint("chunked", query: ["total": 3_000_000])
                    guard try await client.request(chunked, options: unlimited).data.count == 3_000_000 else { exit(2) }
                } catch {
                    exit(3)
                }
                // 100 GB announced, 2 MB sent, then the connection closes.
                let announced = FaultServer.endpoint(
                    "close-mid-body", query: ["length": 100_000_000_000, "send": 2_000_000])
                do {
                    _ = try await client.request(announced, options: unlimited)
                    exit(4)
                } catch {
                    exit(error is NALError ? 0 : 5)
                }
            }
        }
    }

    /// Inflating the bomb keeps the work queue that every session in a process shares busy for a second or more
    /// (Linux fact 26), which would stall the calls of the tests beside it: it runs in a child process, in the heavy
    /// pass of scripts/test.sh, where its own bound is not eaten by its neighbours on a loaded machine.
    @Test(
        "a body past the in-memory limit, chunked or a gzip bomb, fails fast with responseTooLarge",
        .enabled(
            if: TransferFiles.bigTransfersEnabled,
            "heavy: runs in the heavy pass of scripts/test.sh (NAL_BIG_TRANSFERS=1)"))
    func bodiesPastTheLimit() async throws {
        await inChildProcess {
            await #expect(processExitsWith: .success) {
                // The server compresses its bomb on first use; a first, unmeasured call keeps that time out. It goes
                // through a transport of its own: over URLSession a call cancelled mid-flood has been seen to hold up
                // the session's next call for its whole idle timeout.
                _ = try? await Client<TestEndpoint>(transport: TestTransports.make()).request(
                    FaultServer.endpoint("gzip-bomb", query: ["total": .int(256 << 20)]),
                    options: RequestOptions(maximumResponseSize: 1024))
                for (path, total) in [("chunked", 256 << 20), ("gzip-bomb", 256 << 20)] {
                    let client = Client<TestEndpoint>(transport: TestTransports.make())
                    let clock = ContinuousClock()
                    let start = clock.now
                    do {
                        _ = try await client.request(
                            FaultServer.endpoint(path, query: ["total": .int(total)]),
                            options: RequestOptions(maximumResponseSize: 1 << 20))
                        print("\(path): no error")
                        exit(1)
                    } catch {
                        guard case .responseTooLarge(let limit, _)? = error as? NALError, limit == 1 << 20 else {
                            print("\(path): \(error)")
                            exit(2)
                        }
                    }
                    if clock.now - start >= Timing.bound(.zero) {
                        print("\(path) took \(clock.now - start)")
                        exit(3)
                    }
                }
                exit(0)
            }
        }
    }
}

/// A chunked body with a trailer: FoundationNetworking takes the trailer's line for a new head, finds the response
/// gone when the transfer completes, and stops the process (`NativeProtocol.swift`: "Transfer completed, but there's
/// no response"), whatever the caller does. CurlTransport reads the body and leaves the trailer. This pins both: when
/// a toolchain fixes FoundationNetworking, the first test fails and the Transports article changes.
@Suite("Integration: a response with a trailer", .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
struct TrailerTests {
    @Test("over URLSessionTransport on Linux, a trailer ends the process: a server can crash a URLSession client")
    func urlSessionCrashes() async {
        #if os(Linux)
            await inChildProcess {
                await #expect(processExitsWith: .failure) {
                    let client = Client<TestEndpoint>(transport: URLSessionTransport())
                    _ = try? await client.request(FaultServer.endpoint("trailer"))
                    exit(0)
                }
            }
        #endif
    }

    #if os(Linux)
        @Test("over CurlTransport the body arrives and the trailer is left out")
        func curlReadsTheBody() async throws {
            let response = try await Client<TestEndpoint>(transport: try CurlTransport()).request(
                FaultServer.endpoint("trailer"))
            #expect(response.string() == "ok")
            #expect(response.headers["X-Checksum"] == nil)
        }
    #endif
}

@Suite(
    "Integration: a Content-Length of 2^63 - 1", .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
struct LargestContentLengthTests {
    static let endpoint = FaultServer.endpoint("lengths", query: ["value": "9223372036854775807"])

    /// Pins FoundationNetworking's bug: once it is fixed, this fails, and the porting table's row goes.
    @Test("over URLSessionTransport on Linux, it ends the process: FoundationNetworking traps on the length")
    func urlSessionCrashes() async {
        #if os(Linux)
            await inChildProcess {
                await #expect(processExitsWith: .failure) {
                    _ = try? await Client<TestEndpoint>(transport: URLSessionTransport()).request(Self.endpoint)
                    exit(0)
                }
            }
        #endif
    }

    #if os(Linux)
        @Test("over CurlTransport the call ends with a lost connection: the server closed 4 bytes in")
        func curlReportsTheCut() async throws {
            let error = await #expect(throws: NALError.self) {
                try await Client<TestEndpoint>(transport: try CurlTransport()).request(Self.endpoint)
            }
            guard case .transport(let urlError) = error else {
                Issue.record("expected a transport error, got \(String(describing: error))")
                return
            }
            #expect(urlError.code == .networkConnectionLost)
        }
    #endif
}

/// Cancellation racing completion on the network. FoundationNetworking's `cancel()` reports the cancellation from
/// a queue that a completion can overtake, and then traps on a task it no longer knows (Linux fact 25); NAL queues
/// every cancellation, its own and the one declining an authentication challenge makes, on the delegate queue.
@Suite("Integration: cancellation racing completion", .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
struct CancellationRaceTests {
    @Test(
        "6,000 calls: 401 challenges, downloads, progress, streamed bodies and data, cancelled at random moments: no crash, no hang"
    )
    func cancelRaces() async throws {
        await inChildProcess {
            await #expect(processExitsWith: .success) {
                // A call that never ends (a deadlock between a stream's cancellation and its progress) fails the test
                // instead of hanging it.
                DispatchQueue.global().asyncAfter(deadline: .now() + 60) { exit(3) }
                let client = Client<TestEndpoint>(transport: TestTransports.make())
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nal-race-\(getpid())")
                try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: directory) }
                // 16 callers at a time: enough to race, few enough not to flood the fault server other tests share.
                await withTaskGroup(of: Void.self) { group in
                    for worker in 0..<16 {
                        group.addTask {
                            // Under ThreadSanitizer, which checks the same code for races, a sixth of the volume.
                            for index in 0..<(Timing.underThreadSanitizer ? 60 : 375) {
                                let wait = Duration.microseconds(Int64.random(in: 0...5_000))
                                let call = Task {
                                    switch index % 6 {
                                    case 0:
                                        _ = try? await client.request(
                                            FaultServer.endpoint("protected", query: ["token": "t"], validation: .none))
                                    case 1:
                                        let file = directory.appendingPathComponent("\(worker)-\(index)")
                                        _ = try? await client.request(
                                            FaultServer.endpoint("source/200000", requestType: .download(.file(file))))
                                    case 2, 3:
                                        do {
                                            for try await _ in client.transfer(FaultServer.endpoint("source/200000")) {}
                                        } catch {}
                                    case 4:
                                        // A streamed body stopped as its transfer ends: over URLSession its
                                        // cancellation waits for the work queue on a thread of its own, and the
                                        // completion must wait for it (Linux fact 25).
                                        do {
                                            for try await _ in try await client.stream(
                                                FaultServer.endpoint("source/200000"))
                                            {}
                                        } catch {}
                                    default:
                                        _ = try? await client.request(FaultServer.endpoint("fast"))
                                    }
                                }
                                if index % 2 == 0 {
                                    try? await Task.sleep(for: wait)
                                    call.cancel()
                                }
                                _ = await call.value
                            }
                        }
                    }
                }
                exit(0)
            }
        }
    }
}

/// Timeouts against the fault server. Serialized: their bounds are in milliseconds.
@Suite("Integration: timeouts", .serialized, .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
struct FaultServerTimeoutTests {
    let client = Client<TestEndpoint>(transport: TestTransports.make())

    func elapsed(_ body: () async throws -> Void) async rethrows -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        try await body()
        return clock.now - start
    }

    @Test("0.9 s against a fast endpoint: the calls succeed (truncated to whole seconds, 0.9 s would be 0)")
    func subSecondFast() async throws {
        // A stall of the whole process longer than the timeout (two shared cores) may time a call out honestly;
        // a timeout truncated to 0 s would fail them all.
        var succeeded = 0
        for _ in 0..<20 {
            do throws(NALError) {
                let response = try await client.request(FaultServer.endpoint("fast", timeout: 0.9))
                #expect(response.string() == "fast")
                succeeded += 1
            } catch {
                guard case .timedOut(let failure) = error, failure.limit == .idle else {
                    Issue.record("expected success or an idle timeout, got \(error)")
                    continue
                }
            }
        }
        #expect(succeeded >= 17, "only \(succeeded) of 20 calls succeeded")
    }

    @Test("0.5 s against a slow endpoint ends after 0.45 s, long before the 3 s response, with the idle timeout")
    func subSecondSlow() async throws {
        var failure: NALError?
        let duration = await elapsed {
            do throws(NALError) {
                _ = try await client.request(FaultServer.endpoint("delay", query: ["ms": 3000], timeout: 0.5))
            } catch {
                failure = error
            }
        }
        guard case .timedOut(let timeout)? = failure else {
            Issue.record("expected timedOut, got \(String(describing: failure))")
            return
        }
        #expect(timeout.limit == .idle)
        #expect(timeout.seconds == 0.5)
        #expect(duration >= .milliseconds(450) && duration <= Timing.bound(.milliseconds(500)), "took \(duration)")
        let message = "\(NALError.timedOut(timeout))"
        #expect(message.contains("/delay?ms=3000 timed out: nothing was sent or received for 0.5 s (the idle timeout)"))
    }

    /// FoundationNetworking's own timeout is only a backstop, a second past the idle timeout rounded up (2 s here):
    /// NAL's idle timer must end the call. Decided by outcome, not by a duration: without that timer the 1.5 s
    /// response arrives before the backstop and the call succeeds; with it, the timer has 1.3 s of margin to fire.
    @Test("a 0.2 s idle timeout ends the call before a 1.5 s response: NAL's timer, not URLSession's 2 s backstop")
    func idleTimerNotBackstop() async throws {
        do throws(NALError) {
            let response = try await client.request(FaultServer.endpoint("delay", query: ["ms": 1500], timeout: 0.2))
            Issue.record("the call outlived its idle timeout: \(response.statusCode)")
        } catch {
            guard case .timedOut(let timeout) = error else {
                Issue.record("expected timedOut, got \(error)")
                return
            }
            #expect(timeout.limit == .idle && timeout.seconds == 0.2)
        }
    }

    /// Truncated to whole seconds (as FoundationNetworking would), 1.95 s is 1 s and the call fails before the
    /// 1.1 s response; kept, it leaves 850 ms for connecting and scheduling on a loaded machine.
    @Test("1.95 s is 1.95 s, not 1 s: a 1.1 s response arrives")
    func fractionalSeconds() async throws {
        let response = try await client.request(FaultServer.endpoint("delay", query: ["ms": 1100], timeout: 1.95))
        #expect(response.string() == "late")
    }

    /// A `URLRequest` cannot tell 60 s chosen from Foundation's default of 60 s: both transports took an endpoint's
    /// 60 s as "not set" and applied their own idle timeout (1 s here) instead.
    @Test("an idle timeout of exactly 60 s, from the endpoint or the call, is 60 s: not the transport's own 1 s")
    func sixtySecondsMeansSixty() async throws {
        let client = Client<TestEndpoint>(transport: TestTransports.make(idleTimeout: 1))
        let fromEndpoint = try await client.request(FaultServer.endpoint("delay", query: ["ms": 2500], timeout: 60))
        #expect(fromEndpoint.string() == "late")
        let fromCall = try await client.request(
            FaultServer.endpoint("delay", query: ["ms": 2500]), options: RequestOptions(timeout: 60))
        #expect(fromCall.string() == "late")
        // Not set anywhere: the transport's own applies.
        do throws(NALError) {
            _ = try await client.request(FaultServer.endpoint("delay", query: ["ms": 2500]))
            Issue.record("a call with no timeout of its own outlived the transport's 1 s")
        } catch {
            guard case .timedOut(let failure) = error else {
                Issue.record("expected timedOut, got \(error)")
                return
            }
            #expect(failure.limit == .idle && failure.seconds == 1)
        }
    }

    @Test("the per-call timeout overrides the endpoint's")
    func perCallTimeout() async throws {
        var failure: NALError?
        let duration = await elapsed {
            do throws(NALError) {
                _ = try await client.request(
                    FaultServer.endpoint("delay", query: ["ms": 3000], timeout: 10),
                    options: RequestOptions(timeout: 0.3))
            } catch {
                failure = error
            }
        }
        guard case .timedOut(let timeout)? = failure else {
            Issue.record("expected timedOut, got \(String(describing: failure))")
            return
        }
        #expect(timeout.seconds == 0.3)
        #expect(duration < Timing.bound(.milliseconds(300)))
    }

    /// Each call keeps its own idle deadline: a call with a short one, started while a call with a long one waits on
    /// the same transport, still ends at its own. Decided by outcome: if it were missed, the short call would get
    /// its 3 s response.
    @Test("a 0.3 s call ends at its idle deadline, not with its 3 s response, while a 30 s call waits beside it")
    func idleDeadlinesPerCall() async throws {
        let key = UUID().uuidString
        let client = self.client
        let waiting = Task {
            try await client.request(FaultServer.endpoint("gated", query: ["key": .string(key)], timeout: 30))
        }
        // Time for the long call to start first. On a loaded machine it may start later: the check is then weaker,
        // never wrong.
        try await Task.sleep(for: .milliseconds(500))
        let short: Result<Response, NALError>
        do throws(NALError) {
            short = .success(
                try await client.request(FaultServer.endpoint("delay", query: ["ms": 3000], timeout: 0.3)))
        } catch {
            short = .failure(error)
        }
        // The long call is let go before anything is checked, so that a failure leaves no call behind.
        _ = try await client.request(FaultServer.endpoint("_open", query: ["key": .string(key)]))
        #expect(try await waiting.value.string() == "aaaabbbb")
        switch short {
        case .success(let response):
            Issue.record("the 0.3 s call outlived its idle timeout: \(response.statusCode)")
        case .failure(let error):
            guard case .timedOut(let timeout) = error, timeout.limit == .idle else {
                Issue.record("expected an idle timeout, got \(error)")
                return
            }
        }
    }

    /// Decided by outcome: held back until the first call's head arrives (10 s), the second call would reach its
    /// 5 s idle timeout; it needs milliseconds.
    @Test("a call to a host whose only connection waits for a head does not wait with it: a fresh transport")
    func secondCallNotHeldBack() async throws {
        let client = Client<TestEndpoint>(transport: TestTransports.make())
        let first = Task { try await client.request(FaultServer.endpoint("delay", query: ["ms": 10_000])) }
        defer { first.cancel() }
        try await Task.sleep(for: .milliseconds(100))
        let second = try await client.request(FaultServer.endpoint("fast", timeout: 5))
        #expect(second.string() == "fast")
    }

    @Test("a server dripping a byte every 100 ms keeps the idle timeout alive but hits the total timeout")
    func dripAgainstTotalTimeout() async throws {
        // 1.6 s of bytes 100 ms apart outlast a 0.9 s idle timeout that each byte restarts; the margin (0.8 s)
        // is what a loaded machine may take from the first byte's connection.
        let alive = try await client.request(
            FaultServer.endpoint("drip", query: ["bytes": 16, "interval_ms": 100], timeout: 0.9))
        #expect(alive.data.count == 16)

        var failure: NALError?
        let duration = await elapsed {
            do throws(NALError) {
                _ = try await client.request(
                    FaultServer.endpoint("drip", query: ["bytes": 50, "interval_ms": 100], timeout: 2, totalTimeout: 2))
            } catch {
                failure = error
            }
        }
        guard case .timedOut(let timeout)? = failure else {
            Issue.record("expected timedOut, got \(String(describing: failure))")
            return
        }
        #expect(timeout.limit == .total)
        #expect(timeout.seconds == 2)
        #expect(duration >= .milliseconds(1950) && duration < Timing.bound(.seconds(2)), "took \(duration)")
        #expect("\(NALError.timedOut(timeout))".contains("did not complete within 2 s (the total timeout)"))
    }

    @Test("the per-call total timeout overrides the endpoint's")
    func perCallTotalTimeout() async {
        var failure: NALError?
        let duration = await elapsed {
            do throws(NALError) {
                _ = try await client.request(
                    FaultServer.endpoint("drip", query: ["bytes": 30, "interval_ms": 100], totalTimeout: 60),
                    options: RequestOptions(totalTimeout: 0.6))
            } catch {
                failure = error
            }
        }
        guard case .timedOut(let timeout)? = failure else {
            Issue.record("expected timedOut, got \(String(describing: failure))")
            return
        }
        #expect(timeout.seconds == 0.6)
        #expect(duration < Timing.bound(.milliseconds(600)))
    }
}
