#if os(Linux)
    import CTestProbes
    import Foundation
    import FoundationNetworking
    import NALCore
    import NALTestSupport
    import Testing

    /// CurlTransport reserves a body's memory from its `Content-Length` when the first bytes arrive, instead of
    /// growing it by doubling: one allocation, no copies, and no more memory than the body.
    @Suite("CurlTransport: the receive buffer", .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
    struct CurlReceiveBufferTests {
        @Test(
            "a body with a Content-Length is kept in as much memory as it holds, not in a buffer grown by doubling",
            .enabled(if: nal_allocated_bytes() >= 0, "the heap in use is known with glibc 2.33+, no sanitizer"))
        func bodyKeptInItsLength() async throws {
            // In a child process: the heap's size in use is the process's, so nothing else may run beside it. The
            // body may come from the heap or be mapped on its own (glibc's mmap threshold moves): both count. The
            // child prints what it measured and exits 0; the judgement is made here, where it can be shown.
            let length = 1_100_000
            var printed = ""
            await inChildProcess {
                let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
                    guard let transport = try? CurlTransport() else { exit(3) }
                    let client = Client<TestEndpoint>(transport: transport)
                    let endpoint = FaultServer.endpoint("source/1100000")
                    // Warm-up: the connection, the handle and libcurl's buffers are made once.
                    for _ in 0..<2 { _ = try? await client.request(endpoint) }
                    // The last warm-up's body may still be freed while the figure is taken (the loop lets its
                    // transfer go a moment after the call returns): ten bodies kept make that one a tenth.
                    let before = nal_allocated_bytes()
                    var bodies: [Data] = []
                    for _ in 0..<10 {
                        guard let response = try? await client.request(endpoint) else { exit(4) }
                        bodies.append(response.data)
                    }
                    let growth = nal_allocated_bytes() - before
                    print("bytes \(bodies.map(\.count).min() ?? 0) growth \(Int(growth) / bodies.count)")
                    exit(0)
                }
                printed = result.map { String(decoding: $0.standardOutputContent, as: UTF8.self) } ?? ""
            }
            let figures = printed.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
            try #require(figures.count == 2, "the child printed \(printed)")
            #expect(figures[0] == length)
            // A body and the response's few KiB each (1,104,032 measured with one body); about 0.9 of that when a
            // warm-up body was freed meanwhile, less whatever else that transfer freed. A reservation that ignored the length (the most, 8 MiB) would show
            // here; the copies of a body grown by doubling show in nal-bench's receive.large allocation count.
            #expect(
                (length * 8 / 10..<length + 200_000).contains(figures[1]),
                "holding \(length)-byte bodies grew the heap by \(figures[1]) bytes each")
        }

        @Test("a Content-Length beside Transfer-Encoding reserves nothing: 8 MiB announced, five bytes kept in a few")
        func lengthBesideChunkingReservesNothing() async throws {
            // In a child process: the address space is the process's. A reservation maps its size even though its
            // pages are never touched, so the mapped size (VmSize) shows it where the resident size would not.
            let kept = 40  // as the child keeps them
            var printed = ""
            await inChildProcess {
                let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
                    guard let transport = try? CurlTransport() else { exit(3) }
                    let client = Client<TestEndpoint>(transport: transport)
                    let endpoint = FaultServer.endpoint("chunked-with-length")
                    _ = try? await client.request(endpoint)
                    let before = ResidentMemory.current("VmSize")
                    var bodies: [Data] = []
                    for _ in 0..<40 {
                        guard let response = try? await client.request(endpoint) else { exit(4) }
                        bodies.append(response.data)
                    }
                    let growth = ResidentMemory.current("VmSize") - before
                    let exact = bodies.allSatisfy { $0 == Data("hello".utf8) } ? 1 : 0
                    print("exact \(exact) growth \(growth)")
                    exit(0)
                }
                printed = result.map { String(decoding: $0.standardOutputContent, as: UTF8.self) } ?? ""
            }
            let figures = printed.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
            try #require(figures.count == 2, "the child printed \(printed)")
            #expect(figures[0] == 1, "a body is not the chunks' five bytes")
            // Reserved from the length, the 40 bodies would map 320 MiB. A thread's first allocation may map a glibc
            // arena of 64 MiB on its own.
            #expect(figures[1] < 160 << 20, "keeping \(kept) five-byte bodies mapped \(figures[1]) bytes more")
        }
    }
#endif
