import Foundation
import NALCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Uploads, downloads and progress through URLSessionTransport against httpbin.
@Suite("Integration: transfers against httpbin", .enabled(if: HTTPBin.url != nil, HTTPBin.skipReason))
struct HTTPBinTransferTests {
    let client = Client<TestEndpoint>(transport: TestTransports.make())

    struct PostEcho: Decodable {
        var form: [String: String]
        var files: [String: String]
        var headers: [String: String]
    }

    @Test("multipart to /post: every field is echoed and the file arrives as it is on disk")
    func multipart() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let notes = directory.appendingPathComponent("notes.txt")
        let text = String(repeating: "line of notes, ünïcode too\n", count: 400)
        try Data(text.utf8).write(to: notes)

        var form = MultipartFormData()
        form.append("Ada Lovelace", name: "author")
        form.append("a \"quoted\" title", name: "title")
        form.append(fileAt: notes, name: "notes")
        form.append(Data("inline".utf8), name: "inline", fileName: "inline.txt")
        let echo = try await client.request(
            HTTPBin.endpoint("post", method: .post, requestType: .uploadMultipart(form)), as: PostEcho.self)
        #expect(echo.form == ["author": "Ada Lovelace", "title": "a \"quoted\" title"])
        #expect(echo.files["notes"] == text)
        #expect(echo.files["inline"] == "inline")
        #expect(echo.headers["Content-Type"]?.hasPrefix("multipart/form-data; boundary=nal-") == true)
    }

    @Test("downloads of /bytes/N and /stream-bytes/N (chunked) land in the file with the size asked for")
    func downloads() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (path, size) in [("bytes/65000", 65_000), ("stream-bytes/90000", 90_000)] {
            let destination = directory.appendingPathComponent("nested-\(size)/deeper/\(size).bin")
            let response = try await client.request(
                HTTPBin.endpoint(path, requestType: .download(.file(destination))))
            #expect(response.fileURL == destination.standardizedFileURL)
            #expect(response.data.isEmpty)
            let attributes = try FileManager.default.attributesOfItem(atPath: destination.path)
            #expect((attributes[.size] as? NSNumber)?.intValue == size, "\(path)")
            // Nothing else is left beside it: the partial file was moved, not copied.
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: destination.deletingLastPathComponent().path)
                    == ["\(size).bin"])
        }
    }

    @Test("progress of /drip rises in order and ends at 1.0; a 404 download keeps its body and leaves no file")
    func dripProgress() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("drip.bin")
        let endpoint = HTTPBin.endpoint(
            "drip",
            requestType: .downloadParameters(
                ["numbytes": 10, "duration": 2, "delay": 0], encoding: URLEncoding.queryString,
                destination: .file(destination)))
        let (events, response) = try await TransferFiles.collect(client, endpoint)
        #expect(response.fileURL != nil)
        // A loaded machine may read several dripped bytes at once, so ask only for one event mid-body.
        #expect(
            events.contains { $0.bytesReceived > 0 && $0.bytesReceived < 10 },
            "\(events.map(\.bytesReceived)) received for 10 bytes dripped over two seconds")
        #expect(TransferFiles.isMonotonic(events))
        #expect(events.last?.fractionCompleted == 1.0)
        #expect(events.last?.bytesReceived == 10 && events.last?.totalBytesToReceive == 10)

        let missing = directory.appendingPathComponent("missing.bin")
        do {
            _ = try await client.request(HTTPBin.endpoint("status/404", requestType: .download(.file(missing))))
            Issue.record("a 404 passed validation")
        } catch {
            #expect(error.response?.statusCode == 404)
            #expect(error.response?.fileURL == nil)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["drip.bin"])
    }
}

/// 1 GiB transfers, resume and bad input against the stdlib test server (`/sink`, `/source/<N>`). They move
/// hundreds of megabytes, so `scripts/test.sh` runs them in a pass of their own, where they upset no timing test.
@Suite(
    "Integration: transfers against the test server",
    .enabled(if: FaultServer.url != nil, FaultServer.skipReason),
    .enabled(if: TransferFiles.bigTransfersEnabled, TransferFiles.bigTransfersSkipReason))
struct FaultServerTransferTests {
    let client = Client<TestEndpoint>(transport: TestTransports.make())
    static let size = TransferFiles.bigSize

    @Test("1 GiB uploaded from a file, plain and as multipart, arrives byte for byte (SHA-256), with progress")
    func bigUploads() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("big.bin")
        try TransferFiles.writeFile(file, size: Self.size)
        let digest = try TransferFiles.sha256(of: file)

        let plain = FaultServer.endpoint("sink", method: .put, requestType: .uploadFile(file))
        let (events, response) = try await TransferFiles.collect(client, plain)
        let sink = try response.decode(FaultServer.Sink.self)
        #expect(sink.bytes == Self.size && sink.sha256 == digest)
        #expect(TransferFiles.isMonotonic(events))
        #expect(events.count >= 10, "\(events.count) progress events")
        #expect(events.last?.bytesSent == Self.size && events.last?.fractionCompleted == 1)

        var form = MultipartFormData()
        form.append("big", name: "label")
        form.append(fileAt: file, name: "payload", mimeType: "application/x-nal-test")
        let multipart = FaultServer.endpoint(
            "sink", method: .post, query: ["multipart": "1"],
            requestType: .uploadCompositeMultipart(form, urlParameters: ["multipart": "1"]))
        let parts = try await client.request(multipart, as: FaultServer.Sink.self).parts ?? []
        #expect(parts.count == 2)
        #expect(parts.first?.name == "label" && parts.first?.bytes == 3)
        #expect(parts.last?.filename == "big.bin" && parts.last?.contentType == "application/x-nal-test")
        #expect(parts.last?.bytes == Self.size && parts.last?.sha256 == digest)
    }

    @Test("1 GiB downloaded to disk is byte for byte what the server sent (SHA-256)")
    func bigDownload() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("big.bin")
        let response = try await client.request(
            FaultServer.endpoint("source/\(Self.size)", requestType: .download(.file(destination))))
        let expected = try await FaultServer.sourceDigest(size: Self.size)
        #expect(response.fileURL == destination.standardizedFileURL)
        #expect(try TransferFiles.sha256(of: destination) == expected.sha256)
    }

    @Test("a download cut at 40 % resumes with Range and If-Range and is byte for byte the whole file")
    func resumesAfterCut() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let size: Int64 = 20_000_000
        let destination = directory.appendingPathComponent("resumed.bin")
        let key = FaultServer.probe()
        let endpoint = FaultServer.endpoint(
            "source/\(size)", requestType: download(["key": .string(key), "cut": "0.4"], to: destination))
        let (events, _) = try await TransferFiles.collect(client, endpoint)
        #expect(try TransferFiles.sha256(of: destination) == (try await FaultServer.sourceDigest(size: size)).sha256)
        let requests = try await FaultServer.journal(probe: key)
        #expect(requests.count == 2, "\(requests.count) requests")
        #expect(requests.last?.header("Range") == "bytes=8000000-")
        #expect(requests.last?.header("If-Range") == "\"v1-\(size)\"")
        #expect(TransferFiles.isMonotonic(events), "progress continues from the cut, it does not restart")
        #expect(events.last?.bytesReceived == size)
    }

    @Test("when the file changed since the cut (another ETag), the download restarts and holds the new file")
    func restartsWhenChanged() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let size: Int64 = 20_000_000
        let destination = directory.appendingPathComponent("changed.bin")
        let key = FaultServer.probe()
        let endpoint = FaultServer.endpoint(
            "source/\(size)",
            requestType: download(["key": .string(key), "cut": "0.4", "changed": "v2"], to: destination))
        _ = try await client.request(endpoint)
        let digest = try TransferFiles.sha256(of: destination)
        #expect(digest == (try await FaultServer.sourceDigest(size: size, etag: "v2")).sha256)
        #expect(digest != (try await FaultServer.sourceDigest(size: size, etag: "v1")).sha256)
        #expect(try await FaultServer.journal(probe: key).count == 2)
    }

    @Test("a server without ranges cannot be resumed: the call fails and no partial file remains")
    func noRangesNoResume() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("cut.bin")
        let endpoint = FaultServer.endpoint(
            "source/5000000",
            requestType: download(
                ["key": .string(FaultServer.probe()), "cut": "0.4", "ranges": "0"], to: destination))
        do {
            _ = try await client.request(endpoint)
            Issue.record("a cut download without ranges succeeded")
        } catch {
            guard case .transport(let urlError) = error else {
                Issue.record("expected a transport error, got \(error)")
                return
            }
            #expect(urlError.code == .networkConnectionLost)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test("a .resumable destination keeps the partial file of a cancelled download; the next call continues it")
    func resumesAcrossCalls() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let size: Int64 = 100_000_000
        let destination = directory.appendingPathComponent("later.bin")
        let key = FaultServer.probe()
        // Paced at about 100 MB/s, so that the download cannot finish before the cancellation lands.
        let endpoint = FaultServer.endpoint(
            "source/\(size)",
            requestType: download(
                ["key": .string(key), "pace_ms": 10], to: destination,
                options: [.createIntermediateDirectories, .replaceExistingFile, .resumable]))
        let first = Task { () async -> NALError? in
            var stopped: NALError?
            do {
                for try await event in client.transfer(endpoint) {
                    if case .progress(let progress) = event, progress.bytesReceived > 10_000_000 { break }
                }
            } catch {
                stopped = error as? NALError
            }
            return stopped
        }
        #expect(await first.value == nil)
        // The transfer ends when its stream's consumer stops; give the cancellation a moment to land.
        try await Task.sleep(for: .milliseconds(300))
        let partialName = try #require(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).first {
                $0.hasPrefix(".later.bin.nal-partial-")
            })
        let partial = directory.appendingPathComponent(partialName)
        let kept = try #require(try FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? NSNumber)
        #expect(kept.int64Value > 0 && kept.int64Value < size)

        _ = try await client.request(endpoint)
        #expect(try TransferFiles.sha256(of: destination) == (try await FaultServer.sourceDigest(size: size)).sha256)
        let requests = try await FaultServer.journal(probe: key)
        #expect(requests.count == 2)
        #expect(requests.last?.header("Range")?.hasPrefix("bytes=") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["later.bin"])
    }

    @Test("bad files are typed errors that name the file, and nothing is left behind")
    func badFiles() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func failure(_ endpoint: TestEndpoint) async -> FileFailure? {
            do {
                _ = try await client.request(endpoint)
            } catch {
                if case .file(let failure) = error { return failure }
                Issue.record("expected a file failure, got \(error)")
            }
            return nil
        }
        let missing = directory.appendingPathComponent("missing.bin")
        let upload = await failure(FaultServer.endpoint("sink", method: .put, requestType: .uploadFile(missing)))
        #expect(upload?.problem == .missing && upload?.role == .uploadSource && upload?.url == missing)
        #expect(upload.map { "\(NALError.file($0))" }?.contains(missing.path) == true)

        var form = MultipartFormData()
        form.append(fileAt: missing, name: "file")
        let part = await failure(FaultServer.endpoint("sink", method: .post, requestType: .uploadMultipart(form)))
        #expect(part?.problem == .missing)

        if let unreadable = Self.unreadableFile(in: directory) {
            let denied = await failure(FaultServer.endpoint("sink", method: .put, requestType: .uploadFile(unreadable)))
            #expect(denied?.problem == .notReadable)
        }

        let source = FaultServer.endpoint("source/1000", requestType: .download(.file(directory)))
        let isDirectory = await failure(source)
        #expect(isDirectory?.problem == .isDirectory && isDirectory?.role == .downloadDestination)

        let readOnly = Self.readOnlyDirectory(in: directory).appendingPathComponent("nal-download.bin")
        let notWritable = await failure(
            FaultServer.endpoint("source/1000", requestType: .download(.file(readOnly, options: []))))
        #expect(notWritable?.problem == .notWritable && notWritable?.url == readOnly)

        let existing = directory.appendingPathComponent("existing.bin")
        try Data("keep me".utf8).write(to: existing)
        let kept = await failure(
            FaultServer.endpoint("source/1000", requestType: .download(.file(existing, options: []))))
        #expect(kept?.problem == .alreadyExists)
        #expect(try Data(contentsOf: existing) == Data("keep me".utf8))

        let noParent = directory.appendingPathComponent("absent/file.bin")
        let parent = await failure(
            FaultServer.endpoint("source/1000", requestType: .download(.file(noParent, options: []))))
        #expect(parent?.problem == .missing)

        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(left.allSatisfy { !$0.contains("nal-partial") }, "\(left)")
    }

    private func download(
        _ query: Parameters, to destination: URL,
        options: DownloadDestination.Options = [.createIntermediateDirectories, .replaceExistingFile]
    ) -> RequestType {
        .downloadParameters(query, encoding: URLEncoding.queryString, destination: .file(destination, options: options))
    }

    /// A file this process cannot read: one with no permissions, or for root (whom permissions do not stop) a
    /// write-only sysfs file.
    private static func unreadableFile(in directory: URL) -> URL? {
        guard geteuid() == 0 else {
            let file = directory.appendingPathComponent("unreadable.bin")
            _ = FileManager.default.createFile(
                atPath: file.path, contents: Data("x".utf8), attributes: [.posixPermissions: 0])
            return file
        }
        let candidate = URL(fileURLWithPath: "/sys/bus/pci/rescan")
        return FileManager.default.fileExists(atPath: candidate.path) ? candidate : nil
    }

    /// A directory this process cannot write to: mode 0555, or for root sysfs, which refuses new files.
    private static func readOnlyDirectory(in directory: URL) -> URL {
        guard geteuid() == 0 else {
            let readOnly = directory.appendingPathComponent("read-only")
            try? FileManager.default.createDirectory(
                at: readOnly, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o555])
            return readOnly
        }
        return URL(fileURLWithPath: "/sys")
    }
}
