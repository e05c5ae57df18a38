#if os(Linux)
    import Foundation
    import FoundationNetworking
    import NALCore
    import NALTestSupport
    import Testing

    /// CurlTransport hands an ended call's easy handle, reset, to the next call: nothing of one request may reach
    /// the next.
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

            await #expect(throws: NALError.self) {
                try await client.request(FaultServer.endpoint("delay", query: ["ms": 3000], timeout: 0.2))
            }
            try await expectFirstCallLook(client, after: "a call ended by its idle timeout")
            // Each call took the handle the last one left: not one spare per call (nine). Two at most: the dropped
            // stream's transfer may leave libcurl after the next call has started.
            #expect((1...2).contains(transport.spareHandleCount))
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
