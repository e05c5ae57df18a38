import Foundation
import NALCore
import NALLogging
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Uploads of files that change under NAL, and of files that are not regular files.
@Suite("Integration: upload safety", .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
struct UploadSafetyTests {
    let client = Client<TestEndpoint>(transport: TestTransports.make())

    @Test("a file that grows during its upload is sent as it was declared: Content-Length bytes, no more")
    func growingFile() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("growing.bin")
        let size: Int64 = 32 << 20
        try TransferFiles.writeFile(file, size: size)
        let digest = try TransferFiles.sha256(of: file)
        let grown = Locked(false)
        let probe = FaultServer.probe()
        let endpoint = FaultServer.endpoint("sink", method: .put, requestType: .uploadFile(file))
            .withQuery(["probe": probe, "pace_ms": "5"])
        var sink: FaultServer.Sink?
        for try await event in client.transfer(endpoint) {
            switch event {
            case .progress:
                guard !grown.withLock({ $0 }) else { continue }
                grown.withLock { $0 = true }
                let handle = try FileHandle(forWritingTo: file)
                try handle.seekToEnd()
                try handle.write(contentsOf: Data("\r\nGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
                try handle.write(contentsOf: Data(count: 8 << 20))
                try handle.close()
            case .completed(let response):
                sink = try response.decode(FaultServer.Sink.self)
            }
        }
        #expect(sink?.bytes == size && sink?.sha256 == digest)
        let smuggled = try await FaultServer.journalEntries(containing: "smuggled")
        #expect(smuggled.isEmpty, "the extra bytes became a second request")
        let upload = try #require(try await FaultServer.journalEntries(containing: probe).last)
        #expect(upload.header("Content-Length") == String(size))
        #expect(upload.header("Transfer-Encoding") == nil, "one framing header, not two")
    }

    @Test("a file that shrinks during its upload fails at once with a file error, not at the idle timeout")
    func shrinkingFile() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("shrinking.bin")
        try TransferFiles.writeFile(file, size: 64 << 20)
        // The server reads 50 ms per MiB, so the upload is still going when the file is cut.
        let endpoint = FaultServer.endpoint(
            "sink", method: .put, requestType: .uploadFile(file), timeout: 30
        )
        .withQuery(["pace_ms": "50"])
        let clock = ContinuousClock()
        let start = clock.now
        do {
            for try await event in client.transfer(endpoint) {
                if case .progress = event { truncate(file.path, 1000) }
            }
            Issue.record("the upload of a file cut to 1000 bytes succeeded")
        } catch let error as NALError {
            guard case .file(let failure) = error else {
                Issue.record("expected a file failure, got \(error)")
                return
            }
            #expect(failure.url == file && failure.role == .uploadSource)
            #expect("\(error)".contains("shrank"))
        }
        #expect(clock.now - start < Timing.bound(.seconds(2)), "not the 30 s idle timeout")
    }

    /// In a child process: a regression (an `open` that blocks on the FIFO, a read of /dev/zero without end) fails
    /// this test instead of hanging or exhausting the run.
    @Test(
        "a FIFO, /dev/zero or a /proc file is refused promptly as an upload or a multipart part, never read without end"
    )
    func specialFiles() async throws {
        await inChildProcess {
            await #expect(processExitsWith: .success) {
                // A hang fails the child instead of the run.
                DispatchQueue.global().asyncAfter(deadline: .now() + 60) { exit(4) }
                let client = Client<TestEndpoint>(transport: TestTransports.make())
                guard let directory = try? TransferFiles.scratchDirectory() else { exit(5) }
                defer { try? FileManager.default.removeItem(at: directory) }
                for kind in ["fifo", "/dev/zero", "/proc/self/status"] {
                    var file = URL(fileURLWithPath: kind)
                    if kind == "fifo" {
                        file = directory.appendingPathComponent("pipe")
                        if mkfifo(file.path, 0o600) != 0 { exit(6) }
                    }
                    var form = MultipartFormData()
                    form.append(fileAt: file, name: "part")
                    for requestType in [RequestType.uploadFile(file), .uploadMultipart(form)] {
                        let clock = ContinuousClock()
                        let start = clock.now
                        do {
                            _ = try await client.request(
                                FaultServer.endpoint("sink", method: .post, requestType: requestType, totalTimeout: 5))
                            print("\(kind) was uploaded")
                            exit(1)
                        } catch {
                            guard case .file(let failure)? = error as? NALError, failure.problem == .notRegularFile
                            else {
                                print("\(kind): expected a notRegularFile failure, got \(error)")
                                exit(2)
                            }
                        }
                        if clock.now - start >= Timing.bound(.milliseconds(100)) {
                            print("\(kind) took \(clock.now - start)")
                            exit(3)
                        }
                    }
                }
                exit(0)
            }
        }
    }

    @Test(
        "a multipart upload of two sparse 4 EiB files fails with a typed error before anything is sent",
        .enabled(if: SparseFiles.canHoldExbibytes, "needs a tmpfs at /dev/shm for exbibyte sparse files"))
    func sparseMultipart() async throws {
        let directory = URL(fileURLWithPath: "/dev/shm/nal-sparse-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var form = MultipartFormData()
        for name in ["a", "b"] {
            let file = directory.appendingPathComponent("\(name).bin")
            #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
            #expect(truncate(file.path, off_t(1) << 62) == 0)
            form.append(fileAt: file, name: name)
        }
        let marker = UUID().uuidString
        let endpoint = FaultServer.endpoint(
            "sink", method: .post,
            requestType: .uploadCompositeMultipart(form, urlParameters: ["probe": .string(marker)]))
        do {
            _ = try await client.request(endpoint)
            Issue.record("the upload was sent")
        } catch .file(let failure) {
            #expect(["a.bin", "b.bin"].contains(failure.url.lastPathComponent))
            #expect("\(NALError.file(failure))".contains("2^63"))
        } catch {
            Issue.record("not a file error: \(error)")
        }
        let sent = try await FaultServer.journalEntries(containing: marker)
        #expect(sent.isEmpty, "nothing reached the server")
    }
}

@Suite("Upload bodies of a declared length")
struct UploadBodyStreamTests {
    func readAll(_ stream: UploadBodyStream) -> (Data, Bool) {
        stream.open()
        defer { stream.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 7000)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count < 0 { return (data, false) }
            if count == 0 { return (data, true) }
            data.append(buffer, count: count)
        }
    }

    @Test("bytes and file ranges are read in order, exactly their declared lengths, whatever the file holds now")
    func segments() throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("f.bin")
        let content = Data((0..<50_000).map { UInt8($0 % 251) })
        try content.write(to: file)
        let stream = try UploadBodyStream([
            .data(Data("head".utf8)), .file(file, length: 30_000), .data(Data("tail".utf8)),
        ])
        #expect(stream.length == 30_008)
        let (data, ended) = readAll(stream)
        #expect(ended && data == Data("head".utf8) + content.prefix(30_000) + Data("tail".utf8))
    }

    @Test("lengths that add up past Int64.max are refused with a file error naming the file, not a trap")
    func lengthOverflow() throws {
        let file = URL(fileURLWithPath: "/tmp/huge.bin")
        #expect(throws: NALError.self) { try UploadBodyStream([.data(Data("x".utf8)), .file(file, length: .max)]) }
        do {
            _ = try UploadBodyStream.Segment.totalLength(of: [.file(file, length: .max), .data(Data("x".utf8))])
            Issue.record("an overflowing sum was accepted")
        } catch .file(let failure) {
            #expect(failure.url == file)
        } catch {
            Issue.record("not a file error: \(error)")
        }
        let fits: [UploadBodyStream.Segment] = [.file(file, length: .max - 1), .data(Data("x".utf8))]
        #expect(try UploadBodyStream.Segment.totalLength(of: fits) == .max)
    }

    @Test("a file shorter than declared ends the stream with an error that says so")
    func shrunk() throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("f.bin")
        try Data(count: 100).write(to: file)
        let stream = try UploadBodyStream([.file(file, length: 1000)])
        let (data, ended) = readAll(stream)
        #expect(!ended && data.count == 100)
        guard case .file(let failure)? = stream.failure else {
            Issue.record("no file failure: \(String(describing: stream.failure))")
            return
        }
        #expect(failure.url == file)
    }
}

/// Whether /dev/shm takes sparse files of exbibytes (tmpfs does; ext4 stops at 16 TiB).
enum SparseFiles {
    static let canHoldExbibytes: Bool = {
        let path = "/dev/shm/nal-sparse-probe-\(getpid())"
        guard FileManager.default.createFile(atPath: path, contents: nil) else { return false }
        defer { unlink(path) }
        return truncate(path, off_t(1) << 62) == 0
    }()
}

extension TestEndpoint {
    /// This endpoint with query parameters added to an upload (whose request type holds no parameters).
    func withQuery(_ query: [String: String]) -> TestEndpoint {
        var copy = self
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)
        components?.percentEncodedPath += "/" + path
        components?.queryItems = query.map { URLQueryItem(name: $0.key, value: $0.value) }
        copy.baseURL = components?.url ?? baseURL
        copy.path = ""
        return copy
    }
}

extension FaultServer {
    /// The requests the server has parsed whose target contains `text`.
    static func journalEntries(containing text: String) async throws -> [JournalEntry] {
        try await journal(probe: text)
    }
}
