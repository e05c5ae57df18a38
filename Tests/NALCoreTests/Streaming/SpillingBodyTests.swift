import Foundation
import NALCore
import NALLogging
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Bodies whose producer cannot wait (URLSession's callbacks): what the consumer has not taken past the bound goes to
/// an unnamed temporary file, in order, and memory stays at the bound.
@Suite("StreamedBody: spilling to disk for producers that cannot wait")
struct SpillingBodyTests {
    /// Chunk `index`: 16 KiB of a byte pattern that differs from chunk to chunk, so that order shows.
    static func chunk(_ index: Int, size: Int = 16 << 10) -> Data {
        Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index &* 7) })
    }

    static func consume(_ body: StreamedBody) async throws(NALError) -> Data {
        let head = try? MemoryTransport.response(to: URLRequest(url: TestEndpoint.exampleBase))
        guard let head else { return Data() }
        var all = Data()
        for try await chunk in ResponseStream(response: head, body: body) { all.append(chunk) }
        return all
    }

    static func spillFiles() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path))
        return (names ?? []).filter { $0.hasPrefix(".nal-stream-") }
    }

    @Test("nobody reading: memory stays at the bound, the rest waits on disk, and all of it arrives in order")
    func spillsPastTheBound() async throws {
        let (body, writer) = StreamedBody.makeStream(highWater: 64 << 10, spillsToDisk: true)
        var expected = Data()
        for index in 0..<400 {
            let chunk = Self.chunk(index)
            expected.append(chunk)
            #expect(writer.append(chunk), "chunk \(index) was refused")
        }
        let waiting = writer.waiting
        #expect(waiting.memory == 64 << 10)
        #expect(waiting.disk == Int64(400 - 4) * (16 << 10))
        // The file is unlinked as soon as it is created: nobody can open it by name. Another test's spill file may
        // be seen between its creation and its unlink, a moment later; this one would stay until `finish()`.
        for _ in 0..<100 where !Self.spillFiles().isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        #expect(Self.spillFiles().isEmpty)
        writer.finish()
        let head = try MemoryTransport.response(to: URLRequest(url: TestEndpoint.exampleBase))
        var iterator = ResponseStream(response: head, body: body).makeAsyncIterator()
        var received = Data()
        while let chunk = try await iterator.next() { received.append(chunk) }
        // Checked while the reader is alive: dropping it stops the body, which clears every count.
        #expect(writer.waiting == (0, 0), "bytes are still counted as waiting after all were read")
        withExtendedLifetime(iterator) {}
        #expect(received.count == expected.count)
        #expect(received == expected)
    }

    @Test("dropping a spilled body leaves its file's close to another thread: freeing gigabytes takes a second")
    func dropLeavesTheCloseToAnotherThread() async throws {
        /// Whether this process holds a descriptor of the (unlinked) spill file once named `name`.
        func isOpen(_ name: String) -> Bool {
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return descriptors.contains { descriptor in
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
                return target?.contains("/\(name)") == true
            }
        }
        let name = try await StreamedBody.holdingSpillFileCloses {
            var (body, writer): (StreamedBody?, StreamedBody.Writer) = StreamedBody.makeStream(
                highWater: 16 << 10, spillsToDisk: true)
            for index in 0..<8 { #expect(writer.append(Self.chunk(index))) }
            let name = try #require(writer.spillFileName)
            #expect(isOpen(name))
            withExtendedLifetime(body) {}
            body = nil
            // Dropped: the body stopped, and its file waits to be closed elsewhere, not by the thread that dropped it.
            #expect(!writer.isActive)
            #expect(isOpen(name), "the dropping thread closed the spill file")
            return name
        }
        for _ in 0..<200 where isOpen(name) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(!isOpen(name), "the spill file was never closed")
    }

    @Test("a lagging consumer gets the backlog on disk in pieces of at most 256 KiB, in order")
    func spilledReadsAreBounded() async throws {
        let (body, writer) = StreamedBody.makeStream(highWater: 16 << 10, spillsToDisk: true)
        var expected = Data()
        for index in 0..<160 {
            let chunk = Self.chunk(index)
            expected.append(chunk)
            #expect(writer.append(chunk))
        }
        writer.finish()
        #expect(writer.waiting.disk > Int64(BodyChannel.largestRead) * 4)
        let head = try MemoryTransport.response(to: URLRequest(url: TestEndpoint.exampleBase))
        var received = Data()
        var largest = 0
        for try await chunk in ResponseStream(response: head, body: body) {
            received.append(chunk)
            largest = max(largest, chunk.count)
        }
        #expect(received == expected)
        // Neighbouring ranges are merged into one read, but never past the stated size.
        #expect(largest > 16 << 10 && largest <= BodyChannel.largestRead, "the largest piece was \(largest) bytes")
    }

    @Test("a producer waiting for capacity is woken once a quarter of the bound waits, not at every chunk taken")
    func producerHysteresis() async throws {
        let (body, writer) = StreamedBody.makeStream(highWater: 64 << 10)
        for index in 0..<4 { #expect(writer.append(Self.chunk(index))) }
        #expect(writer.isFull)
        #expect(writer.lowWater == 16 << 10)
        let woken = Locked(false)
        let producer = Task {
            await writer.awaitCapacity()
            woken.withLock { $0 = true }
        }
        // The producer waits on a full body before anything is taken.
        try await Task.sleep(for: .milliseconds(200))
        #expect(!woken.withLock { $0 }, "a producer of a full body did not wait")
        let head = try MemoryTransport.response(to: URLRequest(url: TestEndpoint.exampleBase))
        var iterator = ResponseStream(response: head, body: body).makeAsyncIterator()
        // 48 KiB and then 32 KiB still wait: above the low water, the producer sleeps on.
        for _ in 0..<2 {
            _ = try await iterator.next()
            try await Task.sleep(for: .milliseconds(100))
            #expect(!woken.withLock { $0 }, "woken with \(writer.waiting.memory) bytes waiting")
        }
        // 16 KiB: a quarter of the bound.
        _ = try await iterator.next()
        await producer.value
        #expect(woken.withLock { $0 })
        writer.finish()
    }

    @Test("what the consumer has read is given back to the file system: the disk holds about what it lags")
    func readRangesAreReleased() async throws {
        let (body, writer) = StreamedBody.makeStream(highWater: 16 << 10, spillsToDisk: true)
        let chunk = Self.chunk(0, size: 256 << 10)
        for _ in 0..<96 { #expect(writer.append(chunk)) }
        let name = try #require(writer.spillFileName)
        let descriptor = try #require(
            (try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")).first { descriptor in
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
                return target?.contains("/\(name)") == true
            })
        func allocated() -> Int64 {
            var info = stat()
            guard stat("/proc/self/fd/\(descriptor)", &info) == 0 else { return -1 }
            return Int64(info.st_blocks) * 512
        }
        let spilled = allocated()
        #expect(spilled >= 20 << 20, "24 MiB spilled, \(spilled) bytes on disk")
        let head = try MemoryTransport.response(to: URLRequest(url: TestEndpoint.exampleBase))
        var iterator = ResponseStream(response: head, body: body).makeAsyncIterator()
        var read = 0
        while read < 20 << 20, let piece = try await iterator.next() { read += piece.count }
        // 20 MiB read, 4 MiB behind: what was read is released in steps of 8 MiB, so at most 12 MiB stay.
        #expect(allocated() <= 12 << 20, "\(allocated()) bytes still on disk after \(read) were read")
        writer.finish()
        withExtendedLifetime(iterator) {}
    }

    @Test("a consumer that catches up and falls behind again: the bytes stay in order across memory and disk")
    func interleaved() async throws {
        let (body, writer) = StreamedBody.makeStream(highWater: 32 << 10, spillsToDisk: true)
        let chunks = 600
        let producer = Task.detached {
            for index in 0..<chunks {
                guard writer.append(Self.chunk(index, size: 4096 + index % 7)) else { return }
                if index % 50 == 0 { try? await Task.sleep(for: .milliseconds(5)) }
            }
            writer.finish()
        }
        let head = try MemoryTransport.response(to: URLRequest(url: TestEndpoint.exampleBase))
        var received = Data()
        var reads = 0
        for try await chunk in ResponseStream(response: head, body: body) {
            received.append(chunk)
            reads += 1
            if reads % 40 == 0 { try await Task.sleep(for: .milliseconds(3)) }
        }
        await producer.value
        let expected = (0..<chunks).reduce(into: Data()) { $0.append(Self.chunk($1, size: 4096 + $1 % 7)) }
        #expect(received == expected)
    }

    @Test("past its disk bound the body fails with responseTooLarge after what came before, and the producer stops")
    func diskBound() async throws {
        let (body, writer) = StreamedBody.makeStream(highWater: 16 << 10, spillsToDisk: true, maximumSpilled: 64 << 10)
        var accepted = 0
        for index in 0..<100 {
            guard writer.append(Self.chunk(index)) else { break }
            accepted += 1
        }
        // One chunk in memory and four on disk; the sixth is refused.
        #expect(accepted == 5)
        #expect(!writer.isActive)
        // What was accepted is delivered, in order, before the error.
        let head = try MemoryTransport.response(to: URLRequest(url: TestEndpoint.exampleBase))
        var delivered = Data()
        do {
            for try await chunk in ResponseStream(response: head, body: body) { delivered.append(chunk) }
            Issue.record("a body past its disk bound ended normally")
        } catch {
            #expect(delivered == (0..<5).reduce(into: Data()) { $0.append(Self.chunk($1)) })
            guard case .responseTooLarge(let limit, _) = error else {
                Issue.record("expected responseTooLarge, got \(error)")
                return
            }
            #expect(limit == 64 << 10)
        }
    }

    @Test("a producer that can wait is never spilled: it is told the body is full")
    func waitingProducerDoesNotSpill() {
        let (body, writer) = StreamedBody.makeStream(highWater: 32 << 10)
        withExtendedLifetime(body) {
            for index in 0..<10 { writer.append(Self.chunk(index)) }
            #expect(writer.isFull)
            #expect(writer.waiting.disk == 0)
            #expect(writer.waiting.memory == 10 * (16 << 10))
        }
    }
}
