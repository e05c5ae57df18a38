import Foundation
import NALCore
import NALLogging
import NALStubbing
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("StubServer: calls that end while a stub still plays, and what it keeps")
struct StubServerSafetyTests {
    static let base = "https://api.example.com"

    @Test("2,000 calls cancelled or timed out during delays, throttled bodies and sleeping handlers: no crash")
    func cancelStorm() async throws {
        await inChildProcess {
            await #expect(processExitsWith: .success) {
                let server = StubServer()
                server.stub(.path("/delayed"), response: StubResponse.string("late").delayed(by: .seconds(5)))
                server.stub(
                    .path("/throttled"),
                    response: StubResponse(body: Data(count: 400_000)).throttled(bytesPerSecond: 200_000))
                server.stub(.path("/handler")) { _ in
                    try? await Task.sleep(for: .seconds(5))
                    return .string("slow")
                }
                let client = Client<TestEndpoint>(
                    transport: URLSessionTransport(configuration: server.sessionConfiguration))
                let plain = URLSession(configuration: server.sessionConfiguration)
                let base = URL(string: StubServerSafetyTests.base) ?? URL(fileURLWithPath: "/")
                await withTaskGroup(of: Void.self) { group in
                    for index in 0..<2_000 {
                        let path = ["/delayed", "/throttled", "/handler"][index % 3]
                        let wait = Duration.milliseconds(Int64(index % 40))
                        group.addTask {
                            switch index % 4 {
                            case 0:
                                let call = Task { try? await client.request(TestEndpoint(baseURL: base, path: path)) }
                                try? await Task.sleep(for: wait)
                                call.cancel()
                                _ = await call.value
                            case 1:
                                _ = try? await client.request(TestEndpoint(baseURL: base, path: path, timeout: 0.02))
                            case 2:
                                _ = try? await client.request(
                                    TestEndpoint(baseURL: base, path: path, totalTimeout: 0.03))
                            default:
                                let task = plain.dataTask(with: base.appendingPathComponent(path))
                                task.resume()
                                try? await Task.sleep(for: wait)
                                task.cancel()
                            }
                        }
                    }
                }
                // Late timers and handlers that outlive their calls must find their calls gone, not the process.
                try? await Task.sleep(for: .milliseconds(500))
                withExtendedLifetime(server) {}
                exit(0)
            }
        }
    }

    @Test("8,000 calls cancelled at random within 3 ms of fast answers, NAL's and plain URLSession's: no crash")
    func cancelRacesCompletion() async throws {
        // Without the fix, FoundationNetworking traps ("a task that is not in the registry") in most runs of a few
        // thousand calls; four rounds make missing it unlikely.
        await inChildProcess {
            await #expect(processExitsWith: .success) {
                let server = StubServer()
                server.stub(.path("/fast"), response: .string("fast"))
                server.stub(.path("/body"), response: StubResponse(body: Data(count: 50_000)))
                let client = Client<TestEndpoint>(
                    transport: URLSessionTransport(configuration: server.sessionConfiguration))
                let plain = URLSession(configuration: server.sessionConfiguration)
                let base = URL(string: StubServerSafetyTests.base) ?? URL(fileURLWithPath: "/")
                // Under ThreadSanitizer, which checks the same code for races, one round.
                for round in 0..<(Timing.underThreadSanitizer ? 1 : 4) {
                    await withTaskGroup(of: Void.self) { group in
                        for index in 0..<2_000 {
                            let path = index % 3 == 0 ? "/body" : "/fast"
                            let wait = Duration.microseconds(Int64.random(in: 0...3_000))
                            group.addTask {
                                if index % 8 != 7 || round == 0 {
                                    let call = Task {
                                        try? await client.request(TestEndpoint(baseURL: base, path: path))
                                    }
                                    try? await Task.sleep(for: wait)
                                    call.cancel()
                                    _ = await call.value
                                } else {
                                    let task = plain.dataTask(with: base.appendingPathComponent(path)) { _, _, _ in }
                                    task.resume()
                                    try? await Task.sleep(for: wait)
                                    task.cancel()
                                }
                            }
                        }
                    }
                }
                try? await Task.sleep(for: .milliseconds(200))
                withExtendedLifetime(server) {}
                exit(0)
            }
        }
    }

    /// Plain URLSession's `cancel()` comes from any thread, so a body chunk the stub server queued just before it may
    /// run after FoundationNetworking has dropped the task (Linux fact 25). Only plain calls here, each waited for
    /// until its completion handler runs, cancelled as its body is delivered in 64 small chunks.
    @Test(
        "32,000 plain URLSession calls cancelled while their bodies are delivered: no crash, each completes",
        .enabled(
            if: TransferFiles.bigTransfersEnabled,
            "a storm this heavy runs in the heavy pass of scripts/test.sh (NAL_BIG_TRANSFERS=1)"))
    func plainCancelStorm() async throws {
        await inChildProcess {
            await #expect(processExitsWith: .success) {
                let server = StubServer()
                server.stub(.path("/chunks"), response: .stream(Array(repeating: Data(count: 1024), count: 64)))
                server.stub(.path("/fast"), response: .string("fast"))
                let plain = URLSession(configuration: server.sessionConfiguration)
                let base = URL(string: StubServerSafetyTests.base) ?? URL(fileURLWithPath: "/")
                // The race is narrow: one round in ten or so crashes without the state check (Linux fact 25).
                for _ in 0..<(Timing.underThreadSanitizer ? 1 : 16) {
                    await withTaskGroup(of: Void.self) { group in
                        for index in 0..<2_000 {
                            let url = base.appendingPathComponent(index % 4 == 0 ? "fast" : "chunks")
                            let wait = Duration.microseconds(Int64.random(in: 0...1_000))
                            group.addTask {
                                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                                    let task = plain.dataTask(with: url) { _, _, _ in done.resume() }
                                    task.resume()
                                    Task {
                                        try? await Task.sleep(for: wait)
                                        task.cancel()
                                    }
                                }
                            }
                        }
                    }
                }
                withExtendedLifetime(server) {}
                exit(0)
            }
        }
    }

    /// In a child process: a regression (a handler that never returns, waited for) fails this test instead of
    /// hanging the run.
    @Test("plain URLSession clients get their timeouts: the configuration's, and the request's own")
    func plainClientTimeouts() async throws {
        await inChildProcess {
            await #expect(processExitsWith: .success) {
                DispatchQueue.global().asyncAfter(deadline: .now() + 60) { exit(9) }
                let server = StubServer()
                server.stub(.path("/slow"), response: StubResponse.string("late").delayed(by: .seconds(30)))
                server.stub(.path("/never")) { _ in
                    await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
                    return .string("never")
                }
                let configuration = server.sessionConfiguration
                configuration.timeoutIntervalForRequest = 1
                let session = URLSession(configuration: configuration)
                let clock = ContinuousClock()
                for path in ["/slow", "/never"] {
                    guard let url = URL(string: StubServerSafetyTests.base + path) else { exit(8) }
                    let start = clock.now
                    do {
                        _ = try await session.data(from: url)
                        print("\(path) answered")
                        exit(1)
                    } catch {
                        if (error as? URLError)?.code != .timedOut {
                            print("\(path): \(error)")
                            exit(2)
                        }
                    }
                    if clock.now - start >= Timing.bound(.seconds(1)) {
                        print("\(path) took \(clock.now - start)")
                        exit(3)
                    }
                }
                // A request's own timeout wins over the configuration's 30 s.
                let patient = server.makeSessionConfiguration()
                patient.timeoutIntervalForRequest = 30
                guard let url = URL(string: StubServerSafetyTests.base + "/slow") else { exit(8) }
                var request = URLRequest(url: url, timeoutInterval: 0.5)
                request.httpMethod = "GET"
                let start = clock.now
                if (try? await URLSession(configuration: patient).data(for: request)) != nil {
                    print("/slow answered within the request's own timeout")
                    exit(4)
                }
                if clock.now - start >= Timing.bound(.milliseconds(500)) {
                    print("the request's own timeout took \(clock.now - start)")
                    exit(5)
                }
                withExtendedLifetime(server) {}
                exit(0)
            }
        }
    }

    @Test("a plain client's resource timeout ends a body still flowing; its request timeout does not, once it flows")
    func plainClientTimeoutsDuringTheBody() async throws {
        let server = StubServer()
        // 20 s of body: the bound below (1 s and a loaded machine's slack) stays well short of it.
        server.stub(
            .path("/long"), response: StubResponse(body: Data(count: 200_000)).throttled(bytesPerSecond: 10_000))
        server.stub(
            .path("/flowing"), response: StubResponse(body: Data(count: 30_000)).throttled(bytesPerSecond: 10_000))
        let bounded = server.makeSessionConfiguration()
        bounded.timeoutIntervalForResource = 1
        let clock = ContinuousClock()
        let start = clock.now
        do {
            _ = try await URLSession(configuration: bounded).data(from: try #require(URL(string: Self.base + "/long")))
            Issue.record("a 20 s body outlived a 1 s resource timeout")
        } catch let error as URLError {
            #expect(error.code == .timedOut)
        }
        #expect(clock.now - start < Timing.bound(.seconds(1)))
        // 3 s of body after a head that comes at once: the request timeout (1.5 s, with room for a loaded machine to
        // start the answer) only waits for the response to begin.
        let patient = server.makeSessionConfiguration()
        patient.timeoutIntervalForRequest = 1.5
        let (data, _) = try await URLSession(configuration: patient).data(
            from: try #require(URL(string: Self.base + "/flowing")))
        #expect(data.count == 30_000)
    }

    @Test("the journal keeps the last requests up to its capacity, large bodies as a digest, and can be cleared")
    func boundedJournal() async throws {
        let server = StubServer(journalCapacity: 100, journaledBodyLimit: 1_000)
        server.stub(.any) { .string("answer to \($0.url?.lastPathComponent ?? "")") }
        let client = server.client()
        for index in 0..<250 {
            let body = index == 249 ? Data(count: 5_000) : Data("small \(index)".utf8)
            _ = try await client.request(
                TestEndpoint(
                    baseURL: try #require(URL(string: Self.base)), path: "p\(index)", method: .post,
                    requestType: .data(body)))
        }
        let journal = server.requests
        // Exactly the last 100, oldest first.
        #expect(journal.map(\.url.lastPathComponent) == (150..<250).map { "p\($0)" })
        #expect(journal.last?.url.lastPathComponent == "p249")
        #expect(journal.last?.body.isEmpty == true && journal.last?.bodyLength == 5_000)
        #expect(journal.last?.bodySHA256 == "7ca5bd879f393d9dd05b14f38add9c0fc6b67928f7f2d261b2e47a32ee8219e3")
        #expect(journal.dropLast().last?.body == Data("small 248".utf8))
        // Each request kept is exported with its own answer.
        let har = try #require(
            try JSONSerialization.jsonObject(with: server.exportHAR()) as? [String: Any])
        let entries = try #require((har["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        #expect(entries.count == 100)
        for entry in entries {
            let url = try #require((entry["request"] as? [String: Any])?["url"] as? String)
            let text = ((entry["response"] as? [String: Any])?["content"] as? [String: Any])?["text"] as? String
            #expect(text == "answer to \(url.split(separator: "/").last ?? "")", "\(url)")
        }
        server.clearJournal()
        #expect(server.requests.isEmpty)
        // Once full, an unanswered request takes the oldest's place without inheriting its answer.
        let small = StubServer(journalCapacity: 2)
        small.stub(.path("/a"), response: .string("A"))
        let smallClient = small.client()
        let base = try #require(URL(string: Self.base))
        for path in ["a", "a", "missing"] {
            _ = try? await smallClient.request(TestEndpoint(baseURL: base, path: path))
        }
        let wrapped = try #require(try JSONSerialization.jsonObject(with: small.exportHAR()) as? [String: Any])
        let statuses = try #require((wrapped["log"] as? [String: Any])?["entries"] as? [[String: Any]]).map {
            ($0["response"] as? [String: Any])?["status"] as? Int
        }
        #expect(statuses == [200, 0], "\(statuses)")
    }

    @Test("StubTransport's journal keeps the last requests up to its capacity, large bodies as a digest, and clears")
    func boundedTransportJournal() async throws {
        let transport = StubTransport<TestEndpoint>(
            .custom { _ in .string("ok") }, journalCapacity: 100, journaledBodyLimit: 1_000)
        let client = Client<TestEndpoint>(transport: transport)
        for index in 0..<250 {
            let body = index == 249 ? Data(count: 5_000) : Data("small \(index)".utf8)
            _ = try await client.request(
                TestEndpoint(
                    baseURL: try #require(URL(string: Self.base)), path: "p\(index)", method: .post,
                    requestType: .data(body)))
        }
        let journal = transport.journal
        #expect(journal.count <= 100 && journal.count >= 90)
        #expect(transport.requests.count == journal.count)
        #expect(journal.last?.url.lastPathComponent == "p249")
        #expect(journal.last?.body.isEmpty == true && journal.last?.bodyLength == 5_000)
        #expect(journal.dropLast().last?.body == Data("small 248".utf8))
        transport.clearRequests()
        #expect(transport.requests.isEmpty && transport.journal.isEmpty)
    }

    @Test("query matcher values of sensitive names are redacted in the unmatched report, its log and verification")
    func reportsHideQuerySecrets() async throws {
        let server = StubServer()
        server.stub(.path("/x") && .query(["token": "Q-SECRET", "page": "2"]), response: .string("x"))
        try await LogCapture.capture("dev.nal=debug,*=off") { sink in
            await #expect(throws: (any Error).self) {
                _ = try await server.client().request(
                    TestEndpoint(baseURL: try #require(URL(string: Self.base)), path: "y"))
            }
            #expect(throws: StubServerError.self) { try server.verifyAllStubsUsed() }
            do {
                try server.verifyAllStubsUsed()
            } catch {
                #expect(!"\(error)".contains("Q-SECRET"))
                #expect("\(error)".contains("token=<redacted>") && "\(error)".contains("page=2"))
            }
            #expect(sink.entries.allSatisfy { !$0.message.contains("Q-SECRET") })
            #expect(sink.entries.contains { $0.message.contains("token=<redacted>") })
        }
    }

    @Test("a header matcher's secret value is redacted in the unmatched report, its log and verification")
    func reportsHideHeaderSecrets() async throws {
        let server = StubServer()
        server.stub(.path("/x") && .header("Authorization", "Bearer H-SECRET-42"), response: .string("x"))
        try await LogCapture.capture("dev.nal=debug,*=off") { sink in
            await #expect(throws: (any Error).self) {
                _ = try await server.client().request(
                    TestEndpoint(baseURL: try #require(URL(string: Self.base)), path: "y"))
            }
            do {
                try server.verifyAllStubsUsed()
                Issue.record("an unused stub passed verification")
            } catch {
                #expect(!"\(error)".contains("H-SECRET-42"), "\(error)")
                #expect("\(error)".contains("header Authorization: Bearer <redacted>"), "\(error)")
            }
            #expect(sink.entries.allSatisfy { !$0.message.contains("H-SECRET-42") })
            #expect(sink.entries.contains { $0.message.contains("header Authorization: Bearer <redacted>") })
        }
    }

    @Test("an unmatched request's secret query value is redacted in the caller's error, every wrapped one included")
    func unmatchedErrorHidesSecrets() async throws {
        let server = StubServer()
        server.stub(.path("/other") && .query(["access_token": "SECRET"]), response: .string("x"))
        let endpoint = TestEndpoint(
            baseURL: try #require(URL(string: "https://stub.example")), path: "x",
            requestType: .parameters(["access_token": "SECRET"], encoding: URLEncoding.queryString))
        do {
            _ = try await server.client().request(endpoint)
            Issue.record("an unmatched request was answered")
        } catch {
            // Everything a caller may print: the NALError, its URLError, and what that wraps, as text and as values.
            var texts = ["\(error)", String(reflecting: error), error.localizedDescription]
            if case .transport(let urlError) = error {
                texts += ["\(urlError)", urlError.localizedDescription, urlError.failingURL?.absoluteString ?? ""]
                texts += urlError.userInfo.map { "\($0.key)=\($0.value)" }
                texts += urlError.errorUserInfo.map { "\($0.key)=\($0.value)" }
            }
            #expect(texts.contains { $0.contains("access_token=<redacted>") }, "\(texts)")
            // Redacted once, and left as it is by every layer that redacts again.
            #expect(!texts.contains { $0.contains("<redacted>>") }, "\(texts)")
            for text in texts { #expect(!text.contains("SECRET"), "\(text)") }
        }
        // What the server kept of the request and of its stubs may show secrets to a test that asks for them; what
        // it reports does not.
        #expect(throws: StubServerError.self) { try server.verifyAllStubsUsed() }
    }

    @Test(
        "a stub with a status that is not HTTP's fails its request with a clear error instead of answering",
        arguments: [0, -1, 99, 1000])
    func invalidStatus(status: Int) async throws {
        let server = StubServer()
        server.stub(.any, response: StubResponse(status: status))
        do {
            _ = try await PlainClient(server).fetch(Self.base + "/x")
            Issue.record("status \(status) was delivered")
        } catch let error as URLError {
            #expect(error.code == .badServerResponse)
            #expect(error.localizedDescription.contains("\(status)"))
        }
        let transport = StubTransport<TestEndpoint>(.custom { _ in StubResponse(status: status) })
        await #expect(throws: NALError.self) {
            _ = try await Client<TestEndpoint>(transport: transport).request(TestEndpoint(validation: .none))
        }
    }

    @Test("an exported journal loads back, redacted query values standing for any value")
    func exportLoadsBack() async throws {
        let server = StubServer()
        server.stub(.path("/items"), response: .json(["ok": true]))
        _ = try await server.client().request(
            TestEndpoint(
                baseURL: try #require(URL(string: Self.base)), path: "items",
                requestType: .parameters(["token": "T-1", "page": 2], encoding: URLEncoding.queryString)))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nal-export-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: file) }
        try server.exportHAR().write(to: file)
        #expect(!String(decoding: try Data(contentsOf: file), as: UTF8.self).contains("T-1"))
        let replay = StubServer()
        try replay.loadHAR(from: file)
        let response = try await replay.client().request(
            TestEndpoint(
                baseURL: try #require(URL(string: Self.base)), path: "items",
                requestType: .parameters(["token": "another", "page": 2], encoding: URLEncoding.queryString)))
        #expect(try response.json() == ["ok": true])
    }

    @Test("redirects followed in the stub layer are exported with their 3xx status, not 0")
    func exportedRedirects() async throws {
        let server = StubServer()
        server.stub(.path("/old"), response: .redirect(to: try #require(URL(string: Self.base + "/new"))))
        server.stub(.path("/new"), response: .string("moved"))
        _ = try await PlainClient(server).fetch(Self.base + "/old")
        let exported = try JSONSerialization.jsonObject(with: server.exportHAR()) as? [String: Any]
        let entries = (exported?["log"] as? [String: Any])?["entries"] as? [[String: Any]] ?? []
        let statuses = entries.compactMap { ($0["response"] as? [String: Any])?["status"] as? Int }
        #expect(statuses == [302, 200])
    }

    @Test("the internal marker headers never show in Response.request")
    func markersStayInside() async throws {
        let server = StubServer()
        server.stub(.any, response: .string("ok"))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nal-up-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("upload".utf8).write(to: file)
        let response = try await server.client().request(
            TestEndpoint(baseURL: try #require(URL(string: Self.base)), method: .post, requestType: .uploadFile(file)))
        let names = (response.request.allHTTPHeaderFields ?? [:]).keys.map { $0.lowercased() }
        #expect(!names.contains("x-nal-transport") && !names.contains("x-nal-upload-file"), "\(names)")
    }

    @Test("nobody but NAL's transport can pass for it: forged markers name no file the server reads")
    func forgedMarkers() async throws {
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("nal-secret-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: secret) }
        try Data("top secret".utf8).write(to: secret)
        let server = StubServer()
        server.stub(.any, response: .string("ok"))
        // An endpoint cannot set them.
        let endpoint = TestEndpoint(
            baseURL: try #require(URL(string: Self.base)), headers: ["x-nal-upload-file": secret.path])
        do {
            _ = try await server.client().request(endpoint)
            Issue.record("an endpoint set a marker header")
        } catch {
            guard case .invalidRequest(.reservedHeader(let name)) = error else {
                Issue.record("expected reservedHeader, got \(error)")
                return
            }
            #expect(name == "x-nal-upload-file")
        }
        // A plain URLSession request's markers are removed and ignored.
        var request = URLRequest(url: try #require(URL(string: Self.base + "/forged")))
        request.httpMethod = "POST"
        request.setValue("1", forHTTPHeaderField: "X-NAL-Transport")
        request.setValue(secret.path, forHTTPHeaderField: "X-NAL-Upload-File")
        _ = try await URLSession(configuration: server.sessionConfiguration).data(for: request)
        let journaled = try #require(server.requests.last)
        #expect(journaled.body.isEmpty, "the stub server read the file a forged header named")
        #expect(journaled.header("X-NAL-Upload-File") == nil && journaled.header("X-NAL-Transport") == nil)
    }

    @Test(
        "pass-through follows redirects as NAL does: Authorization never reaches another origin",
        .enabled(if: HTTPBin.url != nil, HTTPBin.skipReason))
    func passThroughRedirects() async throws {
        let base = try #require(HTTPBin.url)
        let server = StubServer(unmatched: .passThrough)
        let session = URLSession(configuration: server.sessionConfiguration)
        for (target, keeps) in [(HTTPBin.otherOrigin + "/headers", false), (base.absoluteString + "/headers", true)] {
            var components = try #require(URLComponents(string: base.absoluteString + "/redirect-to"))
            components.queryItems = [URLQueryItem(name: "url", value: target)]
            var request = URLRequest(url: try #require(components.url))
            request.setValue("Bearer s3cret-token", forHTTPHeaderField: "Authorization")
            let (data, response) = try await session.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            let echoed = String(decoding: data, as: UTF8.self)
            #expect(echoed.contains("s3cret-token") == keeps, "\(target): \(echoed)")
        }
    }

    @Test(
        "pass-through sends an uploaded file of over 64 MiB whole",
        .enabled(if: FaultServer.url != nil, FaultServer.skipReason),
        .enabled(if: TransferFiles.bigTransfersEnabled, TransferFiles.bigTransfersSkipReason))
    func passThroughBigUpload() async throws {
        let server = StubServer(unmatched: .passThrough)
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("big.bin")
        try TransferFiles.writeFile(file, size: 70 << 20)
        let response = try await server.client().request(
            FaultServer.endpoint("sink", method: .put, requestType: .uploadFile(file)))
        let sink = try response.decode(FaultServer.Sink.self)
        let digest = try TransferFiles.sha256(of: file)
        #expect(sink.bytes == 70 << 20 && sink.sha256 == digest)
    }

    @Test(
        "a released server that was install()ed stops claiming requests: URLSession.shared reaches the network",
        .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
    func installedServerReleased() async {
        await inChildProcess {
            await #expect(processExitsWith: .success) {
                guard let url = FaultServer.url else { exit(0) }
                do {
                    let server = StubServer()
                    server.install()
                    server.stub(.any, response: .string("stubbed"))
                    let (data, _) = try await URLSession.shared.data(from: url.appendingPathComponent("fast"))
                    guard String(decoding: data, as: UTF8.self) == "stubbed" else { exit(1) }
                } catch {
                    exit(2)
                }
                guard let (data, _) = try? await URLSession.shared.data(from: url.appendingPathComponent("fast")) else {
                    exit(3)
                }
                exit(String(decoding: data, as: UTF8.self) == "fast" ? 0 : 4)
            }
        }
    }
}
