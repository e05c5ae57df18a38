#if os(Linux)
    import Foundation
    import NALLogging
    import NALTestSupport
    import Testing

    @testable import NALCore

    /// What happens to CurlTransport's calls when libcurl's multi interface fails, when the transport shuts down,
    /// and to the handles it keeps between calls.
    @Suite(
        "CurlTransport: multi-level failures, shutdown and spare handles",
        .enabled(if: HTTPBin.url != nil, HTTPBin.skipReason),
        .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
    struct CurlTransportLifecycleTests {
        @Test("a multi-level failure fails the calls in flight at once with a typed error; the next call works")
        func multiFailure() async throws {
            let transport = try CurlTransport(idleTimeout: 60)
            let client = Client<TestEndpoint>(transport: transport)
            let clock = ContinuousClock()
            let start = clock.now
            async let held = client.request(HTTPBin.endpoint("delay/10"))
            // Once the call is in libcurl's hands.
            while transport.transfersInLibcurl == 0 { try await Task.sleep(for: .milliseconds(10)) }
            // CURLM_OUT_OF_MEMORY.
            transport.injectMultiFailure(3)
            do {
                _ = try await held
                Issue.record("the call outlived its multi handle's failure")
            } catch NALError.transport(let urlError) {
                #expect(urlError.code == .cannotLoadFromNetwork)
                #expect(urlError.localizedDescription.contains("curl_multi_perform failed"), "\(urlError)")
                #expect(urlError.localizedDescription.contains("CURLMcode 3"), "\(urlError)")
            }
            #expect(clock.now - start < Timing.bound(.seconds(5)), "the call waited for its timeout")
            #expect(transport.transfersInLibcurl == 0)
            #expect(try await client.request(HTTPBin.endpoint("get")).statusCode == 200)
        }

        @Test(
            "shutdown() cancels the calls and streams in flight, refuses new calls, ends the thread, frees the spares")
        func shutdown() async throws {
            let transport = try CurlTransport(idleTimeout: 60)
            let client = Client<TestEndpoint>(transport: transport)
            let stream = try await client.stream(
                FaultServer.endpoint("drip", query: ["bytes": 20, "interval_ms": 1000]))
            let clock = ContinuousClock()
            let start = clock.now
            async let held = client.request(HTTPBin.endpoint("delay/10"))
            while transport.transfersInLibcurl < 2 { try await Task.sleep(for: .milliseconds(10)) }
            // Both took a handle; a call that ends now leaves one spare behind.
            _ = try await client.request(HTTPBin.endpoint("get"))
            #expect(transport.spareHandleCount == 1)
            await transport.shutdown()
            #expect(transport.eventLoopHasEnded)
            #expect(transport.transfersInLibcurl == 0)
            #expect(transport.spareHandleCount == 0)
            do {
                _ = try await held
                Issue.record("the call outlived shutdown()")
            } catch {
                guard case .cancelled = error as? NALError else {
                    Issue.record("expected .cancelled, got \(error)")
                    return
                }
            }
            do {
                for try await _ in stream {}
                Issue.record("the stream outlived shutdown()")
            } catch {
                guard case .cancelled = error else {
                    Issue.record("expected .cancelled, got \(error)")
                    return
                }
            }
            #expect(clock.now - start < Timing.bound(.seconds(3)), "shutdown waited for the calls to end")
            // Calls made afterwards fail at once, naming the shutdown; a second shutdown does nothing more.
            do {
                _ = try await client.request(HTTPBin.endpoint("get"))
                Issue.record("a call was made after shutdown()")
            } catch {
                guard case .transportUnavailable(let reason) = error else {
                    Issue.record("expected transportUnavailable, got \(error)")
                    return
                }
                #expect(reason.contains("shut down"))
            }
            await transport.shutdown()
        }

        /// The statuses of 100 small calls made at once: what a download beside them must not hold back.
        static func hundredCalls(through client: Client<TestEndpoint>) async throws -> [Int] {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<100 {
                    group.addTask { try await client.request(FaultServer.endpoint("echo")).statusCode }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }

        @Test("a download's progress handler runs off the event loop: slow, it holds back no call beside it")
        func slowHandlerBesideCalls() async throws {
            let transport = try CurlTransport(maximumConnectionsPerHost: 12)
            let client = Client<TestEndpoint>(transport: transport)
            let folder = try TransferFiles.scratchDirectory()
            defer { try? FileManager.default.removeItem(at: folder) }
            let seen = Locked((events: 0, onLoop: 0, last: 0.0))
            let clock = ContinuousClock()
            let start = clock.now
            // The first events take the handler 300 ms each: on the event loop, every call would wait too. A handler
            // that slow sees the newest event each time, not a backlog.
            async let download = client.request(
                FaultServer.endpoint(
                    "source/4000000", requestType: .download(.file(folder.appendingPathComponent("big.bin")))),
                options: RequestOptions(),
                progress: { progress in
                    let count = seen.withLock { seen in
                        seen.events += 1
                        seen.last = progress.fractionCompleted ?? 0
                        if Thread.current.name == CurlEventLoop.threadName { seen.onLoop += 1 }
                        return seen.events
                    }
                    if count <= 2 { usleep(300_000) }
                })
            while seen.withLock({ $0.events }) == 0 { try await Task.sleep(for: .milliseconds(5)) }
            let calls = try await Self.hundredCalls(through: client)
            let callsTook = clock.now - start
            #expect(calls.count == 100 && calls.allSatisfy { $0 == 200 })
            let saved = try await download
            let file = try #require(saved.fileURL)
            #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int == 4_000_000)
            // Every event reached the handler before the call returned, none of them on the loop's thread.
            let (events, onLoop, last) = seen.withLock { ($0.events, $0.onLoop, $0.last) }
            #expect(events >= 2)
            #expect(last == 1, "the final event had not reached the handler when the call returned")
            #expect(onLoop == 0, "\(onLoop) of \(events) events ran on the event loop")
            #expect(clock.now - start >= .milliseconds(600))
            #expect(callsTook < Timing.bound(.seconds(1)), "100 calls took \(callsTook) beside the download")

            // A call kept in memory returns once its final event, too, has reached the slow handler.
            let final = Locked((events: 0, last: 0.0))
            _ = try await client.request(
                FaultServer.endpoint("source/200000"), options: RequestOptions(),
                progress: { progress in
                    let count = final.withLock { final in
                        final.events += 1
                        final.last = progress.fractionCompleted ?? 0
                        return final.events
                    }
                    if count == 1 { usleep(300_000) }
                })
            #expect(final.withLock { $0.last } == 1, "the call returned before its final progress event was handled")
        }

        @Test(
            "a slow disk holds back its download alone: it pauses past 4 MiB waiting, 100 calls beside it finish",
            .timeLimit(.minutes(2)))
        func slowDiskBesideCalls() async throws {
            let transport = try CurlTransport(maximumConnectionsPerHost: 12)
            let client = Client<TestEndpoint>(transport: transport)
            let folder = try TransferFiles.scratchDirectory()
            defer { try? FileManager.default.removeItem(at: folder) }
            // 250 ms for each write of at most 16 KiB: a 64 MB download would take over 16 minutes.
            transport.slowDownloadWrites(by: .milliseconds(250))
            let download = Task {
                try await client.request(
                    FaultServer.endpoint(
                        "source/64000000", requestType: .download(.file(folder.appendingPathComponent("slow.bin")))))
            }
            let clock = ContinuousClock()
            let waited = clock.now
            while transport.downloadWriteBacklog.pauses == 0 {
                guard clock.now - waited < Timing.bound(.seconds(5)) else {
                    Issue.record("the download never paused behind its slow writes")
                    download.cancel()
                    return
                }
                try await Task.sleep(for: .milliseconds(5))
            }
            let start = clock.now
            let calls = try await Self.hundredCalls(through: client)
            let callsTook = clock.now - start
            #expect(calls.count == 100 && calls.allSatisfy { $0 == 200 })
            #expect(callsTook < Timing.bound(.seconds(1)), "100 calls took \(callsTook) beside the slow download")
            // Cancelled while its writes are behind: the write in progress ends, the others are dropped.
            let cancelled = clock.now
            download.cancel()
            let error = await #expect(throws: NALError.self) { try await download.value }
            if case .cancelled? = error {
            } else {
                Issue.record("expected .cancelled, got \(String(describing: error))")
            }
            #expect(clock.now - cancelled < Timing.bound(.seconds(1)))
            var backlog = transport.downloadWriteBacklog
            #expect(backlog.writesOnLoop == 0, "\(backlog.writesOnLoop) slow writes ran on the event loop")
            #expect(backlog.peak <= CurlFileWrites.highWater + 64 << 10, "\(backlog.peak) bytes waited at once")

            // Slowed less, a download pauses and resumes until it is whole, every byte in place.
            let pausedBefore = backlog.pauses
            transport.slowDownloadWrites(by: .milliseconds(1))
            let endpoint = FaultServer.endpoint(
                "source/12000000", requestType: .download(.file(folder.appendingPathComponent("whole.bin"))))
            let saved = try #require(try await client.request(endpoint).fileURL)
            let expected = try await client.request(FaultServer.endpoint("source/12000000")).data
            #expect(try Data(contentsOf: saved) == expected)
            backlog = transport.downloadWriteBacklog
            #expect(backlog.pauses - pausedBefore >= 2, "the download paused \(backlog.pauses - pausedBefore) times")
            #expect(backlog.peak <= CurlFileWrites.highWater + 64 << 10, "\(backlog.peak) bytes waited at once")
            #expect(backlog.writesOnLoop == 0)
        }

        @Test("spare handles are freed once no call has ended for their lifetime")
        func spareLifetime() async throws {
            let transport = try CurlTransport()
            transport.setSpareHandleLifetime(.milliseconds(300))
            let client = Client<TestEndpoint>(transport: transport)
            _ = try await client.request(HTTPBin.endpoint("get"))
            let deadline = ContinuousClock.now + Timing.bound(.seconds(2))
            while transport.spareHandleCount > 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(transport.spareHandleCount == 0, "the spare handle was kept past its lifetime")
            // And the transport goes on making handles.
            #expect(try await client.request(HTTPBin.endpoint("get")).statusCode == 200)
        }
    }

    /// When spare handles are freed, on a clock the test sets.
    @Suite("CurlHandlePool: spare handles and their lifetime")
    struct CurlHandlePoolTests {
        @Test("spares are kept while handles keep coming back, and freed once none has for the lifetime")
        func lifetime() throws {
            _ = try CurlTransport()  // loads libcurl
            let pool = CurlHandlePool()
            let start = ContinuousClock.now
            let handle = try #require(pool.take())
            // A handle that comes back 20 s on: the lifetime (30 s) counts from then, not from the pool's start.
            pool.recycle(handle, at: start + .seconds(20))
            #expect(pool.spareCount == 1)
            #expect(pool.freeIdleSpares(now: start + .seconds(40)) == .seconds(10))
            #expect(pool.spareCount == 1)
            #expect(pool.freeIdleSpares(now: start + .seconds(50)) == nil)
            #expect(pool.spareCount == 0)
            #expect(pool.freeIdleSpares(now: start + .seconds(90)) == nil)
        }
    }
#endif
