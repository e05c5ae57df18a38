import Foundation
import NALCore
import NALLogging
import NALMiddleware
import NALStubbing
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Stubbed uploads and downloads report progress as real ones do, through StubTransport and through StubServer.
@Suite("Stubbed transfers")
struct StubTransferTests {
    static func endpoint(_ path: String, method: HTTPMethod = .get, _ requestType: RequestType) -> TestEndpoint {
        TestEndpoint(path: path, method: method, requestType: requestType)
    }

    @Test("StubTransport: a .file stub downloads to its destination; .throttled shows the progress")
    func stubTransportDownload() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("source.bin")
        try TransferFiles.writeFile(source, size: 400_000)
        let destination = directory.appendingPathComponent("out/copy.bin")
        let stubs = StubTransport<TestEndpoint>(.custom { _ in .file(source).throttled(bytesPerSecond: 2_000_000) })
        let client = Client<TestEndpoint>(transport: stubs)
        let (events, response) = try await TransferFiles.collect(
            client, Self.endpoint("file", .download(.file(destination))))
        #expect(response.fileURL == destination.standardizedFileURL && response.data.isEmpty)
        #expect(try Data(contentsOf: destination) == Data(contentsOf: source))
        #expect(events.count >= 5, "\(events.count) events over 0.2 s")
        #expect(TransferFiles.isMonotonic(events))
        #expect(events.last?.fractionCompleted == 1 && events.last?.bytesReceived == 400_000)
        #expect(events.dropLast().contains { ($0.fractionCompleted ?? 0) > 0 && ($0.fractionCompleted ?? 0) < 1 })
    }

    @Test("the completion-handler API reports progress on its callback queue, then completes")
    func completionHandlerProgress() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("copy.bin")
        let stubs = StubTransport<TestEndpoint>(
            .custom { _ in StubResponse(body: Data(count: 300_000)).throttled(bytesPerSecond: 1_500_000) })
        let client = Client<TestEndpoint>(transport: stubs)
        let queue = DispatchQueue(label: "nal.test.callbacks")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let seen = Locked<(events: [TransferProgress], offQueue: Int)>(([], 0))
        let result = await withCheckedContinuation { continuation in
            client.request(
                Self.endpoint("file", .download(.file(destination))), callbackQueue: queue,
                progress: { progress in
                    seen.withLock {
                        $0.events.append(progress)
                        if DispatchQueue.getSpecific(key: key) != true { $0.offQueue += 1 }
                    }
                },
                completion: { continuation.resume(returning: $0) })
        }
        #expect(try result.get().fileURL == destination.standardizedFileURL)
        let (events, offQueue) = seen.withLock { $0 }
        #expect(offQueue == 0, "progress arrived off the callback queue")
        #expect(events.count >= 3 && TransferFiles.isMonotonic(events), "\(events.count) events")
        #expect(events.last?.fractionCompleted == 1 && events.last?.bytesReceived == 300_000)
    }

    @Test("StubTransport: an upload's progress; a retry starts again from zero and says it is attempt 2")
    func stubTransportUploadAndRetry() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("up.bin")
        try TransferFiles.writeFile(file, size: 300_000)
        let upload = Self.endpoint("up", method: .put, .uploadFile(file))
        let stubs = StubTransport<TestEndpoint>(.immediate)
        stubs.stub(
            upload, with: StubResponse(status: 503).throttled(bytesPerSecond: 3_000_000),
            StubResponse(status: 201).throttled(bytesPerSecond: 3_000_000))
        let client = Client<TestEndpoint>(middleware: [RetryMiddleware(baseDelay: .milliseconds(1))], transport: stubs)
        let (events, response) = try await TransferFiles.collect(client, upload)
        #expect(response.statusCode == 201)
        let first = events.filter { $0.attempt == 1 }
        let second = events.filter { $0.attempt == 2 }
        #expect(first.count >= 3 && second.count >= 3, "\(first.count) and \(second.count) events")
        #expect(TransferFiles.isMonotonic(first) && TransferFiles.isMonotonic(second))
        #expect((second.first?.bytesSent ?? .max) < (first.last?.bytesSent ?? 0), "the retry starts again")
        #expect(second.last?.bytesSent == 300_000 && second.last?.fractionCompleted == 1)
        #expect(events.last?.attempt == 2)
    }

    @Test(
        "StubServer through URLSessionTransport: a multipart upload with a file part is journaled whole within the limit, as its length and SHA-256 past it; its progress is one event at the end",
        arguments: [20_000, 3_000_000])
    func stubServerMultipartUpload(fileSize: Int) async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("photo.bin")
        try TransferFiles.writeFile(file, size: Int64(fileSize))
        var form = MultipartFormData()
        form.append("Ada", name: "author")
        form.append(fileAt: file, name: "photo", fileName: "photo.bin", mimeType: "application/octet-stream")
        for limit in [8 << 20, StubServer.defaultJournaledBodyLimit] {
            let server = StubServer(journaledBodyLimit: limit)
            server.stub(.method(.post) && .path("/v1/form"), response: .string("multipart seen"))
            let (events, response) = try await TransferFiles.collect(
                server.client(), Self.endpoint("form", method: .post, .uploadMultipart(form)))
            #expect(response.statusCode == 200)
            let journaled = try #require(server.requests(matching: .path("/v1/form")).last)
            #expect(journaled.bodyLength > fileSize, "the journal has \(journaled.bodyLength) bytes")
            if journaled.bodyLength <= limit {
                #expect(journaled.body.count == journaled.bodyLength && journaled.bodySHA256 == nil)
                let text = String(decoding: journaled.body, as: UTF8.self)
                #expect(text.contains("name=\"author\"\r\n\r\nAda\r\n") && text.contains("filename=\"photo.bin\""))
            } else {
                #expect(journaled.body.isEmpty && journaled.bodySHA256?.count == 64)
            }
            // A URLProtocol cannot report upload progress: the transport reports the whole body sent at the end.
            #expect(events.last?.bytesSent == Int64(journaled.bodyLength), "\(events.map(\.bytesSent))")
            #expect(TransferFiles.isMonotonic(events))
        }
    }

    @Test("StubServer through NAL's transport: a throttled .file download shows progress; an upload is journaled")
    func stubServerTransfers() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("source.bin")
        try TransferFiles.writeFile(source, size: 600_000)
        let server = StubServer()
        server.stub(.path("/v1/file"), response: .file(source).throttled(bytesPerSecond: 3_000_000))
        server.stub(.method(.put) && .path("/v1/up"), response: StubResponse(status: 204))
        let client = server.client()

        let destination = directory.appendingPathComponent("copy.bin")
        let (events, response) = try await TransferFiles.collect(
            client, Self.endpoint("file", .download(.file(destination))))
        #expect(response.fileURL != nil)
        #expect(try Data(contentsOf: destination) == Data(contentsOf: source))
        #expect(events.count >= 5 && TransferFiles.isMonotonic(events), "\(events.count) events")
        #expect(events.last?.fractionCompleted == 1)

        let upload = directory.appendingPathComponent("up.txt")
        try Data("uploaded through the stub server".utf8).write(to: upload)
        let uploaded = try await client.request(Self.endpoint("up", method: .put, .uploadFile(upload)))
        #expect(uploaded.statusCode == 204)
        let journaled = try #require(server.requests(matching: .path("/v1/up")).last)
        #expect(journaled.body == Data("uploaded through the stub server".utf8))
        #expect(journaled.header("X-NAL-Upload-File") == nil, "NAL's marker headers never show")

        var form = MultipartFormData()
        form.append("Ada", name: "author")
        server.stub(.method(.post) && .path("/v1/form"), response: .string("multipart seen"))
        _ = try await client.request(Self.endpoint("form", method: .post, .uploadMultipart(form)))
        let body = try #require(server.requests(matching: .path("/v1/form")).last?.body)
        #expect(String(decoding: body, as: UTF8.self).contains("name=\"author\"\r\n\r\nAda\r\n"))
    }
}
