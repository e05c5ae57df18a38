#if os(Linux)
    import Foundation
    import FoundationNetworking
    import NALCore
    import NALTestSupport
    import Testing

    /// CurlTransport hands the easy handle of a call that ended well, reset, to the next call: nothing of one request
    /// may reach the next, and a handle whose transfer was cut short is freed, not reused.
    @Suite("CurlTransport: reused easy handles", .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
    struct CurlHandleReuseTests {
        @Test("a call on a reused handle carries nothing of the calls before it: method, body, fields, upload, pause")
        func reusedHandleStartsClean() async throws {
            let transport = try CurlTransport()
            let client = Client<TestEndpoint>(transport: transport)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("nal-reuse-\(UUID().uuidString)")
            try Data("from the file".utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }

            let patched = try await client.request(
                FaultServer.endpoint(
                    "echo", method: .patch, requestType: .data(Data("secret body".utf8)), headers: ["X-Once": "1"]),
                as: FaultServer.Echo.self)
            #expect(patched.method == "PATCH" && patched.body == "secret body" && patched.header("X-Once") == "1")
            try await expectFirstCallLook(client, after: "a PATCH with a body and a field of its own")

            let uploaded = try await client.request(
                FaultServer.endpoint("echo", method: .put, requestType: .uploadFile(file)), as: FaultServer.Echo.self)
            #expect(uploaded.method == "PUT" && uploaded.body == "from the file")
            try await expectFirstCallLook(client, after: "an upload read from a file")

            // A stream whose consumer falls behind pauses its transfer; this one is dropped while paused.
            let stream = try await client.stream(FaultServer.endpoint("source/4000000"))
            for try await _ in stream { break }
            try await expectFirstCallLook(client, after: "a stream dropped while its transfer was paused")

            // Each call took the handle the last one left: one spare, not one per call (seven so far). The dropped
            // stream's handle was freed, whenever its transfer left libcurl.
            #expect(transport.spareHandleCount == 1)
            let spares = transport.spareHandleCount

            // The call takes a spare, and its handle, cut short, is freed rather than given back.
            await #expect(throws: NALError.self) {
                try await client.request(FaultServer.endpoint("delay", query: ["ms": 3000], timeout: 0.2))
            }
            #expect(transport.spareHandleCount == spares - 1, "the handle of a call ended by its idle timeout was kept")
            try await expectFirstCallLook(client, after: "a call ended by its idle timeout")
        }

        @Test("a handle cut short by cancellation or a failure is freed; every handle alive is a spare or in a call")
        func cutShortHandlesAreFreed() async throws {
            let transport = try CurlTransport(maximumResponseSize: 1000)
            let client = Client<TestEndpoint>(transport: transport)
            _ = try await client.request(FaultServer.endpoint("fast"))
            #expect(transport.spareHandleCount == 1)
            await #expect(throws: NALError.self) { try await client.request(FaultServer.endpoint("source/5000")) }
            #expect(transport.spareHandleCount == 0, "the handle of a call over the in-memory limit was kept")
            await #expect(throws: NALError.self) { try await client.request(FaultServer.endpoint("close-mid-body")) }
            #expect(transport.spareHandleCount == 0, "the handle of a call the server cut was kept")
            let slow = Task { try await client.request(FaultServer.endpoint("delay", query: ["ms": 20_000])) }
            for _ in 0..<200 where transport.transfersInLibcurl == 0 { try await Task.sleep(for: .milliseconds(10)) }
            slow.cancel()
            _ = await slow.result
            #expect(transport.spareHandleCount == 0, "the handle of a cancelled call was kept")
        }

        // Over HTTP/1.1: the test server (Python's ssl) resumes no session on its HTTP/2 port, though libcurl offers it.
        @Test(
            "a new connection resumes the TLS session an earlier connection of the same transport made",
            .enabled(if: H2Server.http1URL != nil, H2Server.skipReason))
        func newConnectionsResumeTLSSessions() async throws {
            let authority = try #require(H2Server.certificateAuthority)
            let client = Client<TestEndpoint>(transport: try CurlTransport(certificateAuthorities: authority))
            // The server closes the first connection after its answer, so the second call needs a new one.
            let first = try await client.request(H2Server.endpoint("hello", query: ["close": "1"], http1Only: true))
                .decode(H2Server.Answer.self)
            let second = try await client.request(H2Server.endpoint("hello", http1Only: true))
                .decode(H2Server.Answer.self)
            #expect(first.protocol_ == "http/1.1" && second.protocol_ == "http/1.1")
            #expect(second.connection != first.connection)
            #expect(!first.resumed)
            #expect(second.resumed, "the second connection made a full TLS handshake")
        }

        @Test("a burst of calls leaves at most sixteen spare handles behind")
        func spareHandlesAreCapped() async throws {
            let transport = try CurlTransport(maximumConnectionsPerHost: 40)
            let client = Client<TestEndpoint>(transport: transport)
            try await withThrowingTaskGroup { group in
                for _ in 0..<40 {
                    group.addTask { _ = try await client.request(FaultServer.endpoint("delay", query: ["ms": 300])) }
                }
                try await group.waitForAll()
            }
            #expect(transport.spareHandleCount == 16)
        }

        @Test("handles past the sixteenth spare are freed, and a dropped transport frees its spares")
        func droppedTransportFreesItsHandles() async {
            // In a child process: the count of live handles is the whole process's.
            await inChildProcess {
                await #expect(processExitsWith: .success) {
                    weak var loop: AnyObject?
                    do {
                        let transport = try CurlTransport(maximumConnectionsPerHost: 24)
                        loop = transport.eventLoop
                        let client = Client<TestEndpoint>(transport: transport)
                        // More calls at once than spares are kept: the handles past the sixteenth are freed.
                        try await withThrowingTaskGroup { group in
                            for _ in 0..<24 {
                                group.addTask {
                                    _ = try await client.request(FaultServer.endpoint("delay", query: ["ms": 300]))
                                }
                            }
                            try await group.waitForAll()
                        }
                        guard CurlTransport.easyHandlesAlive == 16, transport.spareHandleCount == 16 else { exit(2) }
                    }
                    // The loop is gone once its deinit starts; the pool frees the spares after that.
                    for _ in 0..<500 where loop != nil || CurlTransport.easyHandlesAlive != 0 {
                        try await Task.sleep(for: .milliseconds(10))
                    }
                    exit(loop == nil && CurlTransport.easyHandlesAlive == 0 ? 0 : 3)
                }
            }
        }

        @Test(
            "over HTTP/2, streams dropped mid-body leave none of their bytes in later calls' bodies",
            .enabled(if: H2Server.url != nil, H2Server.skipReason))
        func droppedHTTP2StreamsLeaveNothingBehind() async throws {
            let authority = try #require(H2Server.certificateAuthority)
            let transport = try CurlTransport(maximumConnectionsPerHost: 1, certificateAuthorities: authority)
            let client = Client<TestEndpoint>(transport: transport)
            _ = try await client.request(Self.big("warm", bytes: 10))
            // Once libcurl 7.88 had let go of a stream cut short, the rest of its data reached the next transfer on
            // its easy handle: such handles are freed, never reused.
            for round in 0..<4 {
                try await withThrowingTaskGroup { group in
                    for index in 0..<2 {
                        group.addTask {
                            let tag = "dropped\(round)x\(index)"
                            let (_, pure) = try await Self.read(client, tag: tag, stopAfter: 200_000)
                            #expect(pure, "\(tag)'s body holds another stream's bytes")
                        }
                    }
                    group.addTask {
                        let tag = "kept\(round)"
                        let (count, pure) = try await Self.read(client, tag: tag, stopAfter: nil)
                        #expect(count == Self.bigBytes, "\(tag) got \(count) bytes")
                        #expect(pure, "\(tag)'s body holds another stream's bytes")
                    }
                    try await group.waitForAll()
                }
            }
        }

        @Test(
            "over HTTP/2, a stream that ends after its whole body, with bytes past its length or not, leaves nothing behind",
            .enabled(if: H2Server.url != nil, H2Server.skipReason))
        func http2StreamEndingLate() async throws {
            let authority = try #require(H2Server.certificateAuthority)
            let client = Client<TestEndpoint>(
                transport: try CurlTransport(maximumConnectionsPerHost: 1, certificateAuthorities: authority))
            // libcurl may end such a call as soon as its Content-Length has come, with the stream still open.
            for (round, late) in [0, 0, 5000, 5000].enumerated() {
                let tag = "late\(round)"
                let endingLate = Self.big(tag, bytes: 300_000, query: ["end_after_ms": 300, "late": .int(late)])
                if late == 0 {
                    let body = try await client.request(endingLate).data
                    #expect(body.count == 300_000 && Self.isPure(body, tag: tag), "\(tag): \(body.count) bytes")
                } else {
                    // Bytes past the length may fail the call or be left out; what matters is the next call.
                    _ = try? await client.request(endingLate)
                }
                let next = "next\(round)"
                let body = try await client.request(Self.big(next, bytes: 300_000)).data
                #expect(body.count == 300_000, "\(next) got \(body.count) bytes")
                #expect(Self.isPure(body, tag: next), "\(next)'s body holds another stream's bytes")
            }
        }

        static let bigBytes = 2_000_000

        /// `/big/<tag>` on the HTTP/2 server: `bytes` bytes of "<tag>|" repeated.
        static func big(_ tag: String, bytes: Int = bigBytes, query: Parameters = [:]) -> TestEndpoint {
            H2Server.endpoint("big/\(tag)", query: query.merging(["n": .int(bytes)]) { $1 })
        }

        /// Whether `data`, starting `offset` bytes into a `/big/<tag>` body, is all that tag's.
        static func isPure(_ data: Data, tag: String, offset: Int = 0) -> Bool {
            let unit = Array("\(tag)|".utf8)
            return data.enumerated().allSatisfy { $0.element == unit[(offset + $0.offset) % unit.count] }
        }

        /// Streams `/big/<tag>`, slowly for its first 100 KB, and drops it after `stopAfter` bytes; returns how many
        /// bytes came and whether they were all the tag's.
        static func read(
            _ client: Client<TestEndpoint>, tag: String, stopAfter: Int?
        ) async throws -> (count: Int, pure: Bool) {
            var count = 0
            var pure = true
            for try await chunk in try await client.stream(big(tag)) {
                if !isPure(chunk, tag: tag, offset: count) { pure = false }
                count += chunk.count
                if let stopAfter, count >= stopAfter { break }
                if count < 100_000 { try await Task.sleep(for: .milliseconds(20)) }
            }
            return (count, pure)
        }

        /// A plain GET through `client` reaches the server as a first call would.
        private func expectFirstCallLook(_ client: Client<TestEndpoint>, after what: Comment) async throws {
            let echo = try await client.request(FaultServer.endpoint("echo"), as: FaultServer.Echo.self)
            #expect(echo.method == "GET", what)
            #expect(echo.bodyLength == 0, what)
            #expect(echo.header("X-Once") == nil, what)
            #expect(echo.header("Content-Type") == nil, what)
            #expect(echo.header("Content-Length") == nil, what)
            #expect(echo.header("Transfer-Encoding") == nil, what)
        }
    }
#endif
