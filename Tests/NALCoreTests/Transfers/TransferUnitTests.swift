import CTestProbes
import Foundation
import NALLogging
import Testing

@testable import NALCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Multipart bodies")
struct MultipartTests {
    @Test("framing: boundary lines, CRLF everywhere, a closing boundary; the length is computed exactly")
    func framing() throws {
        var form = MultipartFormData()
        form.append("Ada", name: "author")
        form.append(Data([0, 1, 2]), name: "blob", fileName: "b.bin", mimeType: "application/x-blob")
        let encoder = MultipartEncoder(parts: form.parts, boundary: "XyZ")
        let body = try encoder.encodedData()
        let expected =
            "--XyZ\r\nContent-Disposition: form-data; name=\"author\"\r\n\r\nAda\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"blob\"; filename=\"b.bin\"\r\n"
            + "Content-Type: application/x-blob\r\n\r\n\u{0}\u{1}\u{2}\r\n--XyZ--\r\n"
        #expect(body == Data(expected.utf8))
        #expect(try encoder.contentLength() == Int64(body.count))
        #expect(encoder.contentType == "multipart/form-data; boundary=XyZ")
        #expect(try MultipartEncoder(parts: [], boundary: "B").encodedData() == Data("--B--\r\n".utf8))
    }

    @Test("names and file names are escaped as browsers do (RFC 7578): no value can end its line or its quotes")
    func escaping() throws {
        var form = MultipartFormData()
        form.append(Data("x".utf8), name: "a\"b\r\nContent-Type: evil", fileName: "we\"ird\nname.txt")
        let text = String(decoding: try MultipartEncoder(parts: form.parts, boundary: "B").encodedData(), as: UTF8.self)
        #expect(text.contains(#"name="a%22b%0D%0AContent-Type: evil"; filename="we%22ird%0Aname.txt""#))
        #expect(
            text.components(separatedBy: "\r\n").filter { $0.hasPrefix("Content-Type:") } == [
                "Content-Type: text/plain"
            ])
        // A MIME type cannot add a header line either.
        var typed = MultipartFormData()
        typed.append(Data("x".utf8), name: "f", fileName: "f.txt", mimeType: "text/plain\r\nX-Injected: 1")
        let typedText = String(
            decoding: try MultipartEncoder(parts: typed.parts, boundary: "B").encodedData(), as: UTF8.self)
        #expect(!typedText.contains("\r\nX-Injected"))
        #expect(typedText.contains("Content-Type: text/plain%0D%0AX-Injected: 1\r\n"))
        // Non-ASCII names travel as UTF-8, as browsers send them.
        #expect(MultipartEncoder.escaped("résumé.pdf") == "résumé.pdf")
    }

    @Test("MIME types come from the extension, any case; unknown is octet-stream; an override wins")
    func mimeTypes() {
        var form = MultipartFormData()
        form.append(fileAt: URL(fileURLWithPath: "/tmp/Photo.JPG"), name: "photo")
        form.append(fileAt: URL(fileURLWithPath: "/tmp/report.pdf"), name: "report", fileName: "q3.pdf")
        form.append(fileAt: URL(fileURLWithPath: "/tmp/data.unknownext"), name: "raw")
        form.append(fileAt: URL(fileURLWithPath: "/tmp/x.json"), name: "forced", mimeType: "text/plain")
        form.append(Data(), name: "inline", fileName: "notes.md")
        #expect(
            form.parts.map(\.mimeType) == [
                "image/jpeg", "application/pdf", "application/octet-stream", "text/plain", "text/markdown",
            ])
        #expect(form.parts.map(\.fileName) == ["Photo.JPG", "q3.pdf", "data.unknownext", "x.json", "notes.md"])
    }

    @Test("the boundary is stable for the same parts, differs for others, and is read back from a Content-Type")
    func boundaries() {
        let one = [MultipartFormBodyPart(provider: .data(Data("1".utf8)), name: "a")]
        let two = [MultipartFormBodyPart(provider: .data(Data("2".utf8)), name: "a")]
        #expect(MultipartEncoder(parts: one).boundary == MultipartEncoder(parts: one).boundary)
        #expect(MultipartEncoder(parts: one).boundary != MultipartEncoder(parts: two).boundary)
        #expect(MultipartEncoder(parts: one).boundary.count == 36)
        #expect(MultipartEncoder.boundary(inContentType: "multipart/form-data; boundary=\"a b\"") == "a b")
        #expect(MultipartEncoder.boundary(inContentType: "multipart/form-data;BOUNDARY=x1") == "x1")
        #expect(MultipartEncoder.boundary(inContentType: "multipart/form-data") == nil)
    }

    @Test("a file part with no type is labelled octet-stream, not left to the server's text/plain; boundary= is none")
    func untypedFilePart() throws {
        let parts = [MultipartFormBodyPart(provider: .data(Data([0xFF])), name: "f", fileName: "blob")]
        let body = try MultipartEncoder(parts: parts, boundary: "B").encodedData()
        let head = "--B\r\nContent-Disposition: form-data; name=\"f\"; filename=\"blob\"\r\n"
        #expect(
            body == Data((head + "Content-Type: application/octet-stream\r\n\r\n").utf8) + [0xFF]
                + Data("\r\n--B--\r\n".utf8))
        #expect(MultipartEncoder.boundary(inContentType: "multipart/form-data; boundary=") == nil)
        #expect(MultipartEncoder.boundary(inContentType: #"multipart/form-data; boundary="""#) == nil)
    }

    @Test("a large body is written to a file in chunks; the file matches the in-memory encoding")
    func writesToFile() throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("source.bin")
        try TransferFiles.writeFile(source, size: 3_000_000)
        var form = MultipartFormData()
        form.append("v", name: "k")
        form.append(fileAt: source, name: "file")
        let encoder = MultipartEncoder(parts: form.parts)
        let target = directory.appendingPathComponent("body")
        try MultipartEncoder.write(encoder.segments(), to: target)
        #expect(try Data(contentsOf: target) == encoder.encodedData())
        #expect(try encoder.contentLength() == Int64(try Data(contentsOf: target).count))
    }
}

@Suite("Download destinations and ranges")
struct DownloadPieceTests {
    static func response(
        _ headers: [String: String], url: String = "https://files.example.com/a/b/report.pdf?x=1"
    )
        throws -> HTTPURLResponse
    {
        try #require(
            HTTPURLResponse(
                url: URL(string: url) ?? URL(fileURLWithPath: "/"), statusCode: 200, httpVersion: nil,
                headerFields: headers))
    }

    @Test("a directory destination takes the Content-Disposition name (filename* first) or the URL's, made safe")
    func directoryNames() throws {
        let directory = URL(fileURLWithPath: "/tmp/downloads")
        let destination = DownloadDestination.directory(directory)
        let cases: [([String: String], String)] = [
            ([:], "report.pdf"),
            (["Content-Disposition": "attachment; filename=\"q3 summary.csv\""], "q3 summary.csv"),
            (["Content-Disposition": "attachment; filename=plain.txt; filename*=UTF-8''na%C3%AFve.txt"], "naïve.txt"),
            (["Content-Disposition": "attachment; filename=\"../../etc/passwd\""], "_.._etc_passwd"),
            (["Content-Disposition": "attachment; filename=\".hidden\""], "hidden"),
            (["Content-Disposition": "attachment; filename=\"..\""], "download"),
        ]
        for (headers, name) in cases {
            let url = destination.url(for: try Self.response(headers))
            #expect(url.lastPathComponent == name, "\(headers)")
            #expect(url.deletingLastPathComponent().path == "/tmp/downloads")
        }
    }

    @Test("Content-Range parses start-end/total, */total of a 416 and unknown totals; anything else is refused")
    func contentRange() {
        #expect(ContentRange("bytes 100-199/1000") == ContentRange(start: 100, end: 199, total: 1000))
        #expect(ContentRange("bytes 5-9/*")?.total == nil)
        let unsatisfied = ContentRange("bytes */1000")
        #expect(unsatisfied?.range == nil && unsatisfied?.total == 1000)
        let bad = [
            "items 1-2/3", "bytes 9-5/10", "bytes 1-2", "bytes a-b/c", "bytes 1-2/x", "bytes */*", "bytes 0-1000/1000",
            "bytes -1-5/10", "bytes +1-5/10", "bytes 0-99999999999999999999/*", "bytes 0-5/99999999999999999999",
            // The length such a range ends would not fit in 63 bits: a resume once trapped on it.
            "bytes 5-9223372036854775807/*", "bytes 9223372036854775807-9223372036854775807/*",
        ]
        for text in bad {
            #expect(ContentRange(text) == nil, "\(text)")
        }
    }

    @Test("a full disk is a typed error that names the file")
    func diskFull() throws {
        // /dev/full accepts the open and fails every write with ENOSPC.
        let full = URL(fileURLWithPath: "/dev/full")
        let writer = try FileWriter(url: full, role: .downloadDestination, mode: .device)
        do {
            try writer.append(Data(count: FileWriter.bufferSize + 1))
            Issue.record("a write to /dev/full succeeded")
        } catch {
            guard case .file(let failure) = error else {
                Issue.record("expected a file failure, got \(error)")
                return
            }
            #expect(failure.problem == .diskFull && failure.url == full)
            #expect("\(error)".contains("the disk or quota is full"))
        }
    }
}

extension ContentRange {
    init(start: Int64, end: Int64, total: Int64?) {
        // swift-format-ignore: NeverForceUnwrap
        // (An initialiser in another module's extension must delegate; this header always parses.)
        self.init("bytes \(start)-\(end)/\(total.map(String.init) ?? "*")")!
    }
}

@Suite("Progress")
struct ProgressReporterTests {
    final class Events: Sendable {
        let values = Locked<[TransferProgress]>([])
        var all: [TransferProgress] { values.withLock { $0 } }
        func handler(_ progress: TransferProgress) { values.withLock { $0.append(progress) } }
    }

    @Test("events are paced, never go backwards, carry the attempt, and the last one says 1")
    func pacing() throws {
        let events = Events()
        let reporter = try #require(
            ProgressReporter(events.handler, attempt: 2, measuresUpload: false))
        reporter.expectReceiving(1_000_000, alreadyReceived: 0)
        for _ in 0..<1000 { reporter.received(1000) }
        reporter.complete()
        reporter.received(5)
        let all = events.all
        #expect(all.count <= 110, "\(all.count) events for 1000 chunks")
        #expect(all.count >= 50)
        #expect(TransferFiles.isMonotonic(all))
        #expect(all.allSatisfy { $0.attempt == 2 })
        #expect(
            all.last
                == TransferProgress(
                    totalBytesToSend: 0, bytesReceived: 1_000_000, totalBytesToReceive: 1_000_000, attempt: 2,
                    fractionCompleted: 1))
    }

    @Test("an upload's fraction measures the bytes sent; unknown totals give no fraction until the end")
    func uploadFraction() throws {
        let events = Events()
        let reporter = try #require(
            ProgressReporter(events.handler, attempt: 1, measuresUpload: true, totalBytesToSend: 400))
        reporter.sent(100, of: 400)
        #expect(events.all.last?.fractionCompleted == 0.25)
        let unknown = Events()
        let download = try #require(ProgressReporter(unknown.handler, attempt: 1, measuresUpload: false))
        download.received(10)
        #expect(unknown.all.last?.fractionCompleted == nil)
        download.complete()
        #expect(unknown.all.last?.fractionCompleted == 1 && unknown.all.last?.totalBytesToReceive == 10)
        #expect(ProgressReporter(nil, attempt: 1, measuresUpload: false) == nil)
    }

    @Test("only the final event says 1: the last bytes arriving before the end emit nothing of their own")
    func onlyTheFinalEventIsComplete() throws {
        let events = Events()
        let reporter = try #require(ProgressReporter(events.handler, attempt: 1, measuresUpload: false))
        reporter.expectReceiving(100, alreadyReceived: 0)
        reporter.received(100)
        reporter.complete()
        #expect(events.all.map(\.fractionCompleted) == [0, 1])
    }

    @Test("a resumed download's progress starts from the bytes it kept; bytes sent never go backwards")
    func keptBytesAndSentBytes() throws {
        let events = Events()
        let reporter = try #require(ProgressReporter(events.handler, attempt: 1, measuresUpload: false))
        reporter.expectReceiving(1000, alreadyReceived: 400)
        #expect(events.all.last?.bytesReceived == 400)
        #expect(events.all.last?.fractionCompleted == 0.4)
        reporter.sent(300, of: 400)
        reporter.sent(100, of: 400)
        reporter.received(100)
        #expect(events.all.last?.bytesReceived == 500)
        #expect(events.all.last?.bytesSent == 300)
    }
}

@Suite("cURL of uploads")
struct UploadCurlTests {
    @Test("bytes as a body, a file as --data-binary @path, a form as -F options without our Content-Type")
    func uploads() throws {
        let bytes = TestEndpoint(path: "up", method: .post, requestType: .uploadData(Data("raw bytes".utf8)))
        #expect(try bytes.curlCommand().hasSuffix("--data-raw 'raw bytes'"))

        let file = TestEndpoint(
            path: "up", method: .put, requestType: .uploadFile(URL(fileURLWithPath: "/tmp/my file.bin")))
        #expect(try file.curlCommand().hasSuffix("--data-binary '@/tmp/my file.bin'"))

        var form = MultipartFormData()
        form.append("Ada", name: "name")
        form.append("hunter2", name: "password")
        form.append(fileAt: URL(fileURLWithPath: "/tmp/report.pdf"), name: "report")
        form.append(Data([0xFF]), name: "blob", fileName: "b.bin")
        let multipart = TestEndpoint(path: "up", method: .post, requestType: .uploadMultipart(form))
        #expect(
            try multipart.curlCommand() == """
                curl -X POST https://api.example.com/v1/up \\
                  --form-string 'name=Ada' \\
                  --form-string 'password=<redacted>' \\
                  -F 'report=@/tmp/report.pdf;filename=report.pdf;type=application/pdf' \\
                  -F 'blob=@-;filename=b.bin;type=application/octet-stream' # 1 bytes, not shown
                """)
        #expect(try multipart.curlCommand(revealingSecrets: true).contains("password=hunter2"))
    }

    @Test("a part with a file name stays a file part in cURL, even when its bytes are text")
    func textFilePart() throws {
        var form = MultipartFormData()
        form.append(Data("hello".utf8), name: "note", fileName: "n.txt", mimeType: "text/plain")
        let multipart = TestEndpoint(path: "up", method: .post, requestType: .uploadMultipart(form))
        for revealing in [false, true] {
            #expect(
                try multipart.curlCommand(revealingSecrets: revealing) == """
                    curl -X POST https://api.example.com/v1/up \\
                      -F 'note=@-;filename=n.txt;type=text/plain' # 5 bytes, not shown
                    """)
        }
    }
}

@Suite("Moving a finished download into place")
struct DownloadMoveTests {
    @Test(
        "a finished download is flushed to disk (fsync) before it is renamed into place, replacing or not",
        .enabled(if: nal_fsync_recorded(0, 0, nil, 0) >= 0, "fsync is recorded only on Linux, without a sanitizer"),
        arguments: [true, false])
    func syncedBeforeTheMove(replacing: Bool) async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try await Self.download(to: directory.appendingPathComponent("synced.bin"), replacing: replacing)
        // The inode now under the final name was synced while it still had its partial name: its bytes were on disk
        // before its name was.
        let syncedName = try #require(Self.syncedPath(of: file), "the file was renamed into place without fsync")
        #expect(
            URL(fileURLWithPath: syncedName).lastPathComponent.hasPrefix(".synced.bin.nal-partial-"),
            "synced as \(syncedName), not as the partial file")
        // And the directory, so that the new name survives as the bytes do.
        #expect(
            Self.syncedPath(of: directory) == directory.resolvingSymlinksInPath().path, "the directory was not synced")
    }

    /// The path `url`'s file or directory had when it was last synced, or `nil`. Compared by path, not only by inode:
    /// scratch directories come and go, and a new one may reuse an inode that a deleted one had when it was synced.
    static func syncedPath(of url: URL) -> String? {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }
        var path = [CChar](repeating: 0, count: 512)
        guard nal_fsync_recorded(UInt64(info.st_dev), UInt64(info.st_ino), &path, Int32(path.count)) == 1 else {
            return nil
        }
        return String(decoding: path.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Downloads five bytes to `destination` through `DownloadJob`, as a transport does, and returns the file.
    static func download(to destination: URL, replacing: Bool = true) async throws -> URL {
        let options: DownloadDestination.Options = replacing ? [.replaceExistingFile] : []
        let url = try #require(URL(string: "https://files.example.com/\(destination.lastPathComponent)"))
        let job = await DownloadJob.make(.file(destination, options: options), for: URLRequest(url: url))
        let response = try DownloadPieceTests.response(["Content-Length": "5"], url: url.absoluteString)
        _ = try job.route(for: response)
        try job.write(Data("hello".utf8))
        guard case .downloaded(let file, _) = try job.conclude(response) else {
            throw CocoaError(.fileWriteUnknown)
        }
        return file
    }

    @Test("a finished file's mode follows the umask in force, as curl's: 0644 under 022, then 0600 under 077")
    func modeFollowsTheUmask() async {
        // In a child process: the umask is the process's. A program that tightens its umask after a first download
        // gets private files from then on.
        await inChildProcess {
            await #expect(processExitsWith: .success) {
                guard let directory = try? TransferFiles.scratchDirectory() else { exit(2) }
                defer { try? FileManager.default.removeItem(at: directory) }
                var modes: [mode_t] = []
                for (mask, name) in [(mode_t(0o022), "shared.bin"), (0o077, "private.bin")] {
                    umask(mask)
                    var info = stat()
                    guard let file = try? await Self.download(to: directory.appendingPathComponent(name)),
                        stat(file.path, &info) == 0
                    else { exit(2) }
                    modes.append(info.st_mode & 0o777)
                }
                exit(modes == [0o644, 0o600] ? 0 : 1)
            }
        }
    }

    @Test(
        "directories made for a download are flushed too, up to the first that existed",
        .enabled(if: nal_fsync_recorded(0, 0, nil, 0) >= 0, "fsync is recorded only on Linux, without a sanitizer"))
    func madeDirectoriesAreSynced() async throws {
        let scratch = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let destination = scratch.appendingPathComponent("new1/new2/x.bin")
        let options: DownloadDestination.Options = [.createIntermediateDirectories]
        let url = try #require(URL(string: "https://files.example.com/x.bin"))
        let job = await DownloadJob.make(.file(destination, options: options), for: URLRequest(url: url))
        let response = try DownloadPieceTests.response(["Content-Length": "2"], url: url.absoluteString)
        _ = try job.route(for: response)
        try job.write(Data("ok".utf8))
        guard case .downloaded = try job.conclude(response) else {
            Issue.record("the download did not finish")
            return
        }
        for directory in [scratch, scratch.appendingPathComponent("new1"), scratch.appendingPathComponent("new1/new2")]
        {
            #expect(
                Self.syncedPath(of: directory) == directory.resolvingSymlinksInPath().path,
                "\(directory.lastPathComponent) was not synced")
        }
    }

    @Test("without hard links, the no-replace move reserves the name exclusively and renames; an existing file stays")
    func noHardLinks() throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let partial = directory.appendingPathComponent(".a.nal-partial-x")
        let destination = directory.appendingPathComponent("a.bin")
        try Data("body".utf8).write(to: partial)
        let refusing: (String, String) -> Int32 = { _, _ in
            errno = EPERM
            return -1
        }
        try DownloadFiles.move(partial, to: destination, replacing: false, link: refusing)
        #expect(try Data(contentsOf: destination) == Data("body".utf8))
        #expect(!FileManager.default.fileExists(atPath: partial.path))

        try Data("second".utf8).write(to: partial)
        #expect(throws: NALError.self) {
            try DownloadFiles.move(partial, to: destination, replacing: false, link: refusing)
        }
        #expect(try Data(contentsOf: destination) == Data("body".utf8), "the file already there is kept")

        // A partial file gone before the move: the call fails, and the empty file that reserved the name goes too.
        let vanished = directory.appendingPathComponent("vanished.bin")
        #expect(throws: NALError.self) {
            try DownloadFiles.move(partial, to: vanished, replacing: false, link: refusing)
        }
        #expect(!FileManager.default.fileExists(atPath: vanished.path), "an empty placeholder was left behind")
    }

    @Test("a new partial or temporary file is created exclusively: an existing file or a link there is refused")
    func exclusiveCreation() throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let victim = directory.appendingPathComponent("victim")
        try Data("keep".utf8).write(to: victim)
        let link = directory.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: victim)
        for path in [victim, link] {
            #expect(throws: NALError.self) { _ = try FileWriter(url: path, role: .temporaryFile, mode: .createNew) }
        }
        #expect(try Data(contentsOf: victim) == Data("keep".utf8))
        let fresh = directory.appendingPathComponent("fresh")
        let writer = try FileWriter(url: fresh, role: .temporaryFile, mode: .createNew)
        try writer.close()
        let mode = try FileManager.default.attributesOfItem(atPath: fresh.path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600, "readable by its owner only until published")
    }

    @Test("a kept partial file is reopened for appending only if it is a regular file of ours with one name")
    func appendOnlyToOwnFile() throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let partial = directory.appendingPathComponent("partial")
        try Data("kept".utf8).write(to: partial)
        let writer = try FileWriter(url: partial, role: .temporaryFile, mode: .appendToOwnFile)
        try writer.close()
        // A second name (a hard link someone made to a file they want overwritten) disqualifies it.
        try FileManager.default.linkItem(at: partial, to: directory.appendingPathComponent("second-name"))
        #expect(throws: NALError.self) {
            _ = try FileWriter(url: partial, role: .temporaryFile, mode: .appendToOwnFile)
        }
    }

    /// In a child process: a regression opens the FIFO for writing and waits for a reader forever.
    @Test("a FIFO planted at a kept partial file's or a device destination's path is refused at once, never waited on")
    func fifoNeverWaitedOn() async {
        await inChildProcess {
            await #expect(processExitsWith: .success) {
                DispatchQueue.global().asyncAfter(deadline: .now() + 20) { exit(3) }
                guard let directory = try? TransferFiles.scratchDirectory() else { exit(4) }
                defer { try? FileManager.default.removeItem(at: directory) }
                let fifo = directory.appendingPathComponent("fifo")
                guard mkfifo(fifo.path, 0o600) == 0 else { exit(5) }
                for mode in [FileWriter.OpenMode.appendToOwnFile, .device] {
                    if (try? FileWriter(url: fifo, role: .temporaryFile, mode: mode)) != nil { exit(1) }
                }
                exit(0)
            }
        }
    }

    @Test("a 303 turns every method but HEAD into GET; HEAD stays HEAD")
    func seeOtherKeepsHead() throws {
        let url = try #require(URL(string: "https://h.example.com/a"))
        for (method, expected) in [("POST", "GET"), ("PUT", "GET"), ("HEAD", "HEAD")] {
            var request = URLRequest(url: url)
            request.httpMethod = method
            let response = try #require(
                HTTPURLResponse(url: url, statusCode: 303, httpVersion: nil, headerFields: ["Location": "/b"]))
            #expect(RedirectPolicy.followUp(to: request, after: response)?.httpMethod == expected, "\(method)")
        }
    }

    @Test(
        "credentials stay with their origin: another scheme, port or host drops them; a default port does not",
        arguments: [
            ("https://api.example.com:8443/b", false), ("http://api.example.com/b", false),
            ("https://other.example.com/b", false), ("https://api.example.com:443/b", true),
            ("https://API.Example.com/b", true), ("/b", true),
        ])
    func credentialsStayWithTheirOrigin(location: String, keeps: Bool) throws {
        let url = try #require(URL(string: "https://api.example.com/a"))
        var request = URLRequest(url: url)
        request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
        request.setValue("session=1", forHTTPHeaderField: "Cookie")
        let response = try #require(
            HTTPURLResponse(url: url, statusCode: 307, httpVersion: nil, headerFields: ["Location": location]))
        let next = try #require(RedirectPolicy.followUp(to: request, after: response))
        #expect((next.value(forHTTPHeaderField: "Authorization") != nil) == keeps)
        #expect((next.value(forHTTPHeaderField: "Cookie") != nil) == keeps)
    }

    @Test("a name of 200 CJK characters is cut to the bytes a file system allows, on a character boundary")
    func longNames() throws {
        let name = String(repeating: "名", count: 200)
        let url = try #require(URL(string: "https://h/x"))
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let response = try #require(
            HTTPURLResponse(
                url: url, statusCode: 200, httpVersion: nil,
                headerFields: ["Content-Disposition": "attachment; filename*=UTF-8''\(encoded)"]))
        let chosen = DownloadDestination.suggestedFileName(for: response)
        #expect(chosen.utf8.count <= 200 && chosen.utf8.count > 190)
        #expect(name.hasPrefix(chosen))
    }
}
