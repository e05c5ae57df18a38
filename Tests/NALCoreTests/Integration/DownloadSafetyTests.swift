import Foundation
import NALCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Downloads against files an attacker prepared, and servers that answer ranges wrongly.
@Suite("Integration: download safety", .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
struct DownloadSafetyTests {
    let client = Client<TestEndpoint>(transport: TestTransports.make())
    static let resumable: DownloadDestination.Options = [
        .createIntermediateDirectories, .replaceExistingFile, .resumable,
    ]

    func source(
        _ size: Int, _ query: Parameters = [:], to destination: DownloadDestination
    ) -> TestEndpoint {
        FaultServer.endpoint(
            "source/\(size)",
            requestType: .downloadParameters(query, encoding: URLEncoding.queryString, destination: destination))
    }

    /// The query of a download that the server holds for 3 s after its first MiB, the first time only: long
    /// enough for a loaded machine to stop it there, and no wait when it is resumed.
    static func held(_ key: String) -> Parameters { ["key": .string(key), "hold_ms": 3000] }

    /// Starts a held resumable download and stops it after a few bytes, leaving a kept partial file; returns it.
    /// The server holds the download after its first MiB, so `size` must be over 1 MiB for the stop to come first.
    func keepPartial(size: Int, key: String, to destination: URL) async throws -> URL {
        let endpoint = source(size, Self.held(key), to: .file(destination, options: Self.resumable))
        let first = Task { () async -> Void in
            do {
                for try await event in client.transfer(endpoint) {
                    if case .progress(let progress) = event, progress.bytesReceived > 300_000 { break }
                }
            } catch {}
        }
        await first.value
        return try await Self.keptFile(
            in: destination.deletingLastPathComponent(), named: ".\(destination.lastPathComponent).nal-partial-")
    }

    /// The partial file a stopped download kept in `directory` (its name starts with `prefix`, or holds
    /// `.nal-partial-`), once the stopped call has let it go. It is kept as the transfer winds down, which a loaded
    /// machine (ThreadSanitizer's) may finish a moment after the caller heard of the stop: looked for until it is
    /// there, for up to 30 s.
    static func keptFile(in directory: URL, named prefix: String? = nil) async throws -> URL {
        var found: String?
        let deadline = ContinuousClock.now + .seconds(30)
        while found == nil, ContinuousClock.now < deadline {
            found = try FileManager.default.contentsOfDirectory(atPath: directory.path).first { name in
                prefix.map { name.hasPrefix($0) } ?? name.contains(".nal-partial-")
            }
            if found == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        let partial = directory.appendingPathComponent(try #require(found))
        try await waitUntilUnlocked(partial)
        return partial
    }

    /// Records `partial` as it is now in its resume record, as NAL does when a download stops: for tests that
    /// change a kept file on purpose and want it resumed all the same. `forgettingTotal` makes it a record of a
    /// file whose whole size no response announced.
    static func acceptChanges(to partial: URL, forgettingTotal: Bool = false) throws {
        let directory = partial.deletingLastPathComponent()
        let records = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasPrefix(".nal-resume-")
        }
        try #require(records.count == 1, "one resume record beside the kept file, found \(records)")
        for name in records {
            let file = directory.appendingPathComponent(name)
            var record = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
            var info = stat()
            #expect(stat(partial.path, &info) == 0)
            record["changed"] = [Int64(info.st_ctim.tv_sec), Int64(info.st_ctim.tv_nsec)]
            if forgettingTotal {
                #expect(record.removeValue(forKey: "total") != nil, "the record has a total to forget")
            }
            try JSONSerialization.data(withJSONObject: record).write(to: file)
        }
    }

    /// Waits until no download holds `file`'s lock: the stopped call has finished cleaning up, so a test can
    /// change the file without racing it.
    static func waitUntilUnlocked(_ file: URL) async throws {
        let clock = ContinuousClock()
        let giveUp = clock.now + Timing.bound(.seconds(2))
        while clock.now < giveUp {
            let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return }
            let free = flock(descriptor, LOCK_EX | LOCK_NB) == 0
            close(descriptor)
            if free { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("\(file.lastPathComponent) is still locked by a stopped download")
    }

    /// The whole content of /source/N, downloaded plainly.
    func wholeSource(size: Int, in directory: URL) async throws -> Data {
        let file = directory.appendingPathComponent("reference-\(UUID().uuidString)")
        _ = try await client.request(source(size, to: .file(file)))
        defer { try? FileManager.default.removeItem(at: file) }
        return try Data(contentsOf: file)
    }

    @Test("an empty body downloads as an empty file, with progress that says it is complete")
    func emptyDownload() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("empty.bin")
        var last = TransferProgress()
        var file: URL?
        for try await event in client.transfer(source(0, to: .file(destination))) {
            switch event {
            case .progress(let progress): last = progress
            case .completed(let response): file = response.fileURL
            }
        }
        #expect(file == destination)
        #expect(try Data(contentsOf: destination).isEmpty)
        #expect(last.bytesReceived == 0)
        #expect(last.fractionCompleted == 1)
    }

    @Test("a kept partial file that is already complete finishes with the 416's bytes */N, in one request")
    func completePartial() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let size = 2_000_000
        let whole = try await wholeSource(size: size, in: directory)
        let destination = directory.appendingPathComponent("done.bin")
        let key = FaultServer.probe()
        let partial = try await keepPartial(size: size, key: key, to: destination)
        let kept = try Data(contentsOf: partial).count
        let handle = try FileHandle(forWritingTo: partial)
        try handle.seekToEnd()
        try handle.write(contentsOf: whole[kept...])
        try handle.close()
        try Self.acceptChanges(to: partial)

        let journalBefore = try await FaultServer.journal(probe: key).count
        let response = try await client.request(
            source(size, Self.held(key), to: .file(destination, options: Self.resumable)))
        #expect(response.statusCode == 200 && response.fileURL == destination.standardizedFileURL)
        #expect(try Data(contentsOf: destination) == whole)
        let requests = try await FaultServer.journal(probe: key)
        #expect(requests.count == journalBefore + 1, "one range request, answered 416, and done")
        #expect(requests.last?.header("Range") == "bytes=\(size)-")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["done.bin"])
    }

    @Test(
        "a 416 that does not match the kept file throws it away and downloads it whole, its size known or not",
        arguments: [true, false])
    func mismatchedPartial(totalKnown: Bool) async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let size = 3_000_000
        let whole = try await wholeSource(size: size, in: directory)
        let destination = directory.appendingPathComponent("grown.bin")
        let key = FaultServer.probe()
        let partial = try await keepPartial(size: size, key: key, to: destination)
        let handle = try FileHandle(forWritingTo: partial)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(count: size))
        try handle.close()
        let offered = try Data(contentsOf: partial).count
        try Self.acceptChanges(to: partial, forgettingTotal: !totalKnown)

        _ = try await client.request(
            source(size, Self.held(key), to: .file(destination, options: Self.resumable)))
        #expect(try Data(contentsOf: destination) == whole)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["grown.bin"])
        // The kept file was offered (a range past the end, which the server answers with 416), then fetched whole.
        let ranges = try await FaultServer.journal(probe: key).map { $0.header("Range") }
        #expect(ranges.suffix(2) == ["bytes=\(offered)-", nil])
    }

    /// A range that starts one byte late, and one that ends at byte 2^63-1 (its end + 1 once trapped a resume).
    @Test(
        "a 206 with a wrong Content-Range is refused after one try, never trapped on",
        arguments: [("bad_range", "bytes=400000-"), ("huge_range", "9223372036854775807")])
    func wrongRangeIsNotRetried(fault: String, named: String) async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = FaultServer.probe()
        let destination = directory.appendingPathComponent("bad.bin")
        var query: Parameters = ["key": .string(key), "cut": "0.4"]
        query[fault] = "1"
        do {
            _ = try await client.request(source(1_000_000, query, to: .file(destination)))
            Issue.record("\(fault): a wrong range was accepted")
        } catch {
            guard case .transport(let urlError) = error else {
                Issue.record("\(fault): expected a transport error, got \(error)")
                return
            }
            #expect(urlError.code == .cannotParseResponse)
            #expect(urlError.localizedDescription.contains(named), "\(fault): \(urlError.localizedDescription)")
        }
        #expect(try await FaultServer.journal(probe: key).count == 2, "the cut request and one resume")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test("a resumed part that cannot be decoded is not asked for again and again: one resume, then the error")
    func undecodableResumeIsNotRetried() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = FaultServer.probe()
        let destination = directory.appendingPathComponent("gz.bin")
        do {
            _ = try await client.request(
                source(1_000_000, ["key": .string(key), "cut": "0.4", "gzip_range": "1"], to: .file(destination)))
            Issue.record("a body that cannot be decoded was accepted")
        } catch {
            guard case .transport = error else {
                Issue.record("expected a transport error, got \(error)")
                return
            }
        }
        #expect(try await FaultServer.journal(probe: key).count == 2, "the cut request and one resume")
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test(
        "no resume without a strong validator or with a content encoding: a cut download fails after one request",
        arguments: [["weak_etag": "1"], ["gzip": "1"]] as [Parameters])
    func notResumable(query: Parameters) async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = FaultServer.probe()
        let destination = directory.appendingPathComponent("cut.bin")
        let parameters = query.merging(["key": .string(key), "cut": "0.4"]) { first, _ in first }
        await #expect(throws: NALError.self) {
            try await client.request(source(1_000_000, parameters, to: .file(destination)))
        }
        let requests = try await FaultServer.journal(probe: key)
        #expect(requests.count == 1, "\(requests.map { $0.header("Range") ?? "-" })")
        #expect(requests.allSatisfy { $0.header("Range") == nil })
    }

    @Test("a symbolic link planted where a partial file would go is never written through")
    func plantedLink() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let victim = directory.appendingPathComponent("victim.txt")
        try Data("precious".utf8).write(to: victim)
        let destination = directory.appendingPathComponent("out.bin")
        // The names NAL used to use, and some guesses: none is followed.
        for name in [".out.bin.nal-partial", ".out.bin.nal-partial-0", ".out.bin.nal-partial.json"] {
            try FileManager.default.createSymbolicLink(
                at: directory.appendingPathComponent(name), withDestinationURL: victim)
        }
        _ = try await client.request(source(100_000, to: .file(destination)))
        #expect(try Data(contentsOf: victim) == Data("precious".utf8))
        #expect(try Data(contentsOf: destination).count == 100_000)
        let attributes = try FileManager.default.attributesOfItem(atPath: destination.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o644)
    }

    @Test(
        "a kept partial file replaced by a link, a hard link or another user's file is not resumed into",
        arguments: ["symlink", "hardlink", "foreign", "swapped", "foreign record", "written to"])
    func replacedPartial(kind: String) async throws {
        if kind.hasPrefix("foreign") && geteuid() != 0 { return }
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let size = 3_000_000
        let whole = try await wholeSource(size: size, in: directory)
        let victim = directory.appendingPathComponent("victim.txt")
        try Data("precious".utf8).write(to: victim)
        let destination = directory.appendingPathComponent("later.bin")
        let key = FaultServer.probe()
        let partial = try await keepPartial(size: size, key: key, to: destination)
        switch kind {
        case "symlink":
            try FileManager.default.removeItem(at: partial)
            try FileManager.default.createSymbolicLink(at: partial, withDestinationURL: victim)
        case "hardlink":
            try FileManager.default.linkItem(at: partial, to: directory.appendingPathComponent("second-name"))
        case "written to":
            // The same file, with bytes someone else added: its status-change time tells.
            let handle = try FileHandle(forWritingTo: partial)
            try handle.seekToEnd()
            try handle.write(contentsOf: Data("forged".utf8))
            try handle.close()
        case "swapped":
            // Another regular file of the same size under the same name: not the file NAL wrote.
            let size = try Data(contentsOf: partial).count
            try FileManager.default.removeItem(at: partial)
            try Data(count: size).write(to: partial)
        case "foreign record":
            let record = try #require(
                try FileManager.default.contentsOfDirectory(atPath: directory.path).first {
                    $0.hasPrefix(".nal-resume-")
                })
            #expect(chown(directory.appendingPathComponent(record).path, 65_534, 65_534) == 0)
        default:
            #expect(chown(partial.path, 65_534, 65_534) == 0)
        }
        let victimBefore = try Data(contentsOf: victim)
        _ = try await client.request(
            source(size, Self.held(key), to: .file(destination, options: Self.resumable)))
        #expect(try Data(contentsOf: destination) == whole)
        #expect(try Data(contentsOf: victim) == victimBefore)
        let requests = try await FaultServer.journal(probe: key)
        #expect(requests.last?.header("Range") == nil, "started again, not resumed into someone else's file")
    }

    @Test("a character device destination is written as it is, never replaced; a FIFO is refused")
    func specialDestinations() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let null = URL(fileURLWithPath: "/dev/null")
        let response = try await client.request(source(200_000, to: .file(null)))
        #expect(response.fileURL?.path == "/dev/null")
        var info = stat()
        #expect(stat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)

        let fifo = directory.appendingPathComponent("pipe")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        do {
            _ = try await client.request(source(1000, to: .file(fifo)))
            Issue.record("a download replaced or wrote into a FIFO")
        } catch {
            guard case .file(let failure) = error else {
                Issue.record("expected a file failure, got \(error)")
                return
            }
            #expect(failure.problem == .notRegularFile)
        }
        #expect(stat(fifo.path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
    }

    @Test("two downloads to one destination at once each write their own partial file; the result is one of them whole")
    func concurrentDownloads() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let size = 3_000_000
        let destination = directory.appendingPathComponent("shared.bin")
        async let first = client.request(source(size, ["etag": "v1", "pace_ms": 50], to: .file(destination)))
        async let second = client.request(source(size, ["etag": "v2", "pace_ms": 50], to: .file(destination)))
        _ = try await (first, second)
        let digest = try TransferFiles.sha256(of: destination)
        let expected = [
            try await FaultServer.sourceDigest(size: Int64(size), etag: "v1").sha256,
            try await FaultServer.sourceDigest(size: Int64(size), etag: "v2").sha256,
        ]
        #expect(expected.contains(digest), "the bytes of one download, not both interleaved")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["shared.bin"])
    }

    @Test("a resumable directory download takes its name from Content-Disposition, and keeps it when resumed")
    func resumableDirectoryNames() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let name = String(repeating: "日本語", count: 100) + ".bin"
        let key = FaultServer.probe()
        let endpoint = source(
            3_000_000, Self.held(key).merging(["disposition": .string(name)]) { first, _ in first },
            to: .directory(directory, options: Self.resumable))
        let first = Task { () async -> Void in
            do {
                for try await event in client.transfer(endpoint) {
                    if case .progress(let progress) = event, progress.bytesReceived > 300_000 { break }
                }
            } catch {}
        }
        await first.value
        // Under ThreadSanitizer's pace the stopped call can keep its file for longer than the next call's patience
        // for another call's file (`resumeAtOnce` covers a call made at once).
        _ = try await Self.keptFile(in: directory)
        let response = try await client.request(endpoint)
        let saved = try #require(response.fileURL)
        #expect(saved.lastPathComponent.utf8.count <= 200, "the file system's 255-byte limit, with room for suffixes")
        #expect(name.hasPrefix(saved.lastPathComponent))
        #expect(try await FaultServer.journal(probe: key).last?.header("Range")?.hasPrefix("bytes=") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [saved.lastPathComponent])
    }

    @Test("a call made the moment another was stopped resumes its partial file, never starting a second one")
    func resumeAtOnce() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let size = 3_000_000
        let whole = try await wholeSource(size: size, in: directory)
        let destination = directory.appendingPathComponent("again.bin")
        for round in 0..<2 {
            let key = FaultServer.probe()
            let endpoint = source(size, Self.held(key), to: .file(destination, options: Self.resumable))
            let first = Task { () async -> Void in
                do {
                    for try await event in client.transfer(endpoint) {
                        if case .progress(let progress) = event, progress.bytesReceived > 300_000 { break }
                    }
                } catch {}
            }
            await first.value
            let response = try await client.request(endpoint)
            #expect(try Data(contentsOf: destination) == whole, "round \(round)")
            #expect(response.statusCode == 200, "the whole file is reported, not the last part's 206")
            #expect(response.headers["Content-Length"] == String(size) && response.headers["Content-Range"] == nil)
            #expect(try await FaultServer.journal(probe: key).last?.header("Range")?.hasPrefix("bytes=") == true)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["again.bin"])
        }
    }

    @Test("two calls resuming one kept partial file at once: one resumes it, the other waits or starts its own")
    func concurrentResumes() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let size = 3_000_000
        let whole = try await wholeSource(size: size, in: directory)
        let destination = directory.appendingPathComponent("both.bin")
        let key = FaultServer.probe()
        _ = try await keepPartial(size: size, key: key, to: destination)
        let endpoint = source(size, Self.held(key), to: .file(destination, options: Self.resumable))
        async let first = client.request(endpoint)
        async let second = client.request(endpoint)
        let (one, two) = try await (first, second)
        #expect(one.fileURL != nil && two.fileURL != nil)
        #expect(try Data(contentsOf: destination) == whole)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["both.bin"])
    }

    @Test(
        "a resumed 206 longer than its range, of another total, or a 416 calling a short file whole is not believed",
        arguments: [
            ["range_extra": "100"], ["range_extra": "endless"], ["range_total": "5000000"], ["unsatisfiable": "0"],
        ])
    func lyingRanges(lie: [String: String]) async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let size = 3_000_000
        let whole = try await wholeSource(size: size, in: directory)
        let destination = directory.appendingPathComponent("lied.bin")
        let key = FaultServer.probe()
        let partial = try await keepPartial(size: size, key: key, to: destination)
        // Asked for in headers, so that the resumed call has the URL the kept file's record names.
        var headers: [String: String] = [:]
        for (name, value) in lie {
            headers["X-Fault-" + name.split(separator: "_").map { $0.capitalized }.joined(separator: "-")] =
                "\(value)"
        }
        if lie["unsatisfiable"] != nil {
            // The 416 names exactly the kept file's size as the whole: a file shorter than the 200 said.
            headers["X-Fault-Unsatisfiable"] = String(try Data(contentsOf: partial).count)
        }
        var endpoint = source(size, Self.held(key), to: .file(destination, options: Self.resumable))
        endpoint.headers = headers
        // An endless part must be stopped at its range's end, not run into this limit.
        endpoint.totalTimeout = 20
        let before = try await FaultServer.journal(probe: key).count
        do {
            let response = try await client.request(endpoint)
            // Only the 416 may end well: by downloading the whole file again.
            #expect(lie["unsatisfiable"] != nil, "a lying 206 was accepted")
            #expect(response.fileURL != nil)
            #expect(try Data(contentsOf: destination) == whole)
        } catch {
            guard case .transport(let urlError)? = error as? NALError else {
                Issue.record("expected a transport error, got \(error)")
                return
            }
            #expect(urlError.code == .cannotParseResponse)
            #expect(try await FaultServer.journal(probe: key).count == before + 1, "not resumed again and again")
            #expect(!FileManager.default.fileExists(atPath: destination.path))
        }
    }

    @Test("a destination name of 250 bytes downloads: the partial file's name is shortened to fit")
    func longDestinationName() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent(String(repeating: "n", count: 246) + ".bin")
        let response = try await client.request(source(100_000, to: .file(destination)))
        #expect(response.fileURL?.lastPathComponent == destination.lastPathComponent)
        #expect(try Data(contentsOf: destination).count == 100_000)
    }

    @Test(
        "a link at the destination is followed only when root or this user owns it; anyone else's is replaced",
        .enabled(if: geteuid() == 0, "needs root to give a link to another user"))
    func destinationLinks() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Another user's links: to a file of yours, and to a device (a disk or a terminal, in a real attack).
        let victim = directory.appendingPathComponent("victim.txt")
        try Data("precious".utf8).write(to: victim)
        var info = stat()
        for target in [victim, URL(fileURLWithPath: "/dev/null")] {
            let planted = directory.appendingPathComponent("planted.bin")
            try? FileManager.default.removeItem(at: planted)
            try FileManager.default.createSymbolicLink(at: planted, withDestinationURL: target)
            #expect(lchown(planted.path, 65_534, 65_534) == 0)
            let response = try await client.request(source(1000, to: .file(planted, options: [.replaceExistingFile])))
            #expect(response.fileURL == planted)
            #expect(try Data(contentsOf: victim) == Data("precious".utf8), "written through someone else's link")
            #expect(lstat(planted.path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG, "\(target.path): not replaced")
            #expect(try Data(contentsOf: planted).count == 1000)
        }

        let own = directory.appendingPathComponent("null.bin")
        try FileManager.default.createSymbolicLink(at: own, withDestinationURL: URL(fileURLWithPath: "/dev/null"))
        let response = try await client.request(source(1000, to: .file(own)))
        #expect(response.fileURL == own)
        #expect(lstat(own.path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK, "this user's link to a device is kept")
    }
}
