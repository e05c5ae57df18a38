import Foundation
import NALCore
import NALLogging
import NALMiddleware
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// HTTPCache in a folder: what a later cache (and a later process) finds there, its size bound at the moment a
/// file is written, damaged files, credentials and file modes.
@Suite("HTTPCache in a folder: restarts, the size bound, damaged files, privacy")
struct HTTPCacheDirectoryTests {
    let clock = TestClock()

    func cache(_ folder: URL, maximumBytes: Int = 1 << 20, probe: (@Sendable (URL) -> Void)? = nil) -> HTTPCache {
        let clock = self.clock
        return HTTPCache(
            storage: .directory(folder, maximumBytes: maximumBytes), clock: { clock.now }, folderWriteProbe: probe)
    }

    /// An origin whose every answer is fresh for an hour, with a body that names the request's path and count.
    func origin() -> CacheTestOrigin {
        CacheTestOrigin(clock: clock) { request, index in
            CacheTestOrigin.Answer(
                headers: ["Cache-Control": "max-age=3600"], body: Data("\(request.url?.path ?? "")#\(index)".utf8))
        }
    }

    static func endpoint(_ path: String, headers: [String: String]? = nil) -> TestEndpoint {
        TestEndpoint(path: path, headers: headers, validation: .none)
    }

    /// The folder's entry files.
    static func entries(in folder: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".entry") }.map { folder.appendingPathComponent($0) }
    }

    /// The bytes all the folder's files take.
    static func folderBytes(_ folder: URL) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.reduce(0) { total, name in
            let path = folder.appendingPathComponent(name).path
            let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
            return total + (size ?? 0)
        }
    }

    static func mode(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions]) as? Int ?? 0) & 0o777
    }

    @Test("an entry is on disk, private to the user, when the call returns; a cache made later serves it")
    func onDiskAndReadAgain() async throws {
        let folder = CacheStoreKind.newFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = origin()
        do {
            let client = Client<TestEndpoint>(middleware: [cache(folder)], transport: origin)
            let first = try await client.request(Self.endpoint("a"))
            #expect(HTTPCache.Outcome(first) == .network)
            let files = Self.entries(in: folder)
            try #require(files.count == 1)
            let bytes = try Data(contentsOf: files[0])
            #expect(bytes.range(of: Data("/v1/a#0".utf8)) != nil)
            #expect(Self.mode(files[0]) == 0o600)
            #expect(Self.mode(folder) == 0o700)
        }
        // The first cache and its store are gone: this one reads the folder afresh.
        let later = cache(folder)
        let client = Client<TestEndpoint>(middleware: [later], transport: origin)
        let second = try await client.request(Self.endpoint("a"))
        #expect(HTTPCache.Outcome(second) == .hit)
        #expect(second.string() == "/v1/a#0")
        #expect(origin.requests.count == 1)
    }

    /// Two child processes in turn, on one folder named after this process: the second serves what the first stored.
    @Test("a new process serves what an earlier process stored")
    func restartAcrossProcesses() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "nal-http-cache-restart-\(getpid())")
        defer { try? FileManager.default.removeItem(at: folder) }
        await inChildProcess {
            await #expect(processExitsWith: .success) {
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "nal-http-cache-restart-\(getppid())")
                let test = HTTPCacheDirectoryTests()
                let client = Client<TestEndpoint>(middleware: [test.cache(folder)], transport: test.origin())
                let response = try? await client.request(Self.endpoint("restart"))
                exit(response.flatMap(HTTPCache.Outcome.init) == .network ? 0 : 1)
            }
            await #expect(processExitsWith: .success) {
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "nal-http-cache-restart-\(getppid())")
                let test = HTTPCacheDirectoryTests()
                let origin = test.origin()
                let client = Client<TestEndpoint>(middleware: [test.cache(folder)], transport: origin)
                let response = try? await client.request(Self.endpoint("restart"))
                guard let response, HTTPCache.Outcome(response) == .hit else { exit(1) }
                exit(response.string() == "/v1/restart#0" && origin.requests.isEmpty ? 0 : 2)
            }
        }
    }

    @Test("while one process has the folder, another caches nothing there and says why")
    func lockedByAnotherProcess() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nal-http-cache-lock-\(getpid())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let held = cache(folder)
        let client = Client<TestEndpoint>(middleware: [held], transport: origin())
        _ = try await client.request(Self.endpoint("held"))
        await inChildProcess {
            await #expect(processExitsWith: .success) {
                let sink = InMemorySink()
                LoggingSystem.bootstrapForTesting(sinks: [sink], configuration: LogConfiguration())
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "nal-http-cache-lock-\(getppid())")
                let test = HTTPCacheDirectoryTests()
                let origin = test.origin()
                let cache = test.cache(folder)
                let client = Client<TestEndpoint>(middleware: [cache], transport: origin)
                for _ in 0..<2 {
                    let response = try? await client.request(Self.endpoint("held"))
                    guard response.flatMap(HTTPCache.Outcome.init) == .network else { exit(1) }
                }
                guard sink.entries.contains(where: { $0.message.contains("another process uses the cache folder") })
                else { exit(2) }
                exit(origin.requests.count == 2 ? 0 : 3)
            }
        }
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("held"))) == .hit)
    }

    @Test("the folder never holds more than maximumBytes, measured when each new file is written whole")
    func sizeBound() async throws {
        let folder = CacheStoreKind.newFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bound = 64 * 1024
        let peaks = Locked<[Int]>([])
        let cache = cache(folder, maximumBytes: bound) { folder in
            let bytes = Self.folderBytes(folder)
            peaks.withLock { $0.append(bytes) }
        }
        let origin = CacheTestOrigin(clock: clock) { request, _ in
            let size = Int(request.url?.lastPathComponent ?? "") ?? 0
            return CacheTestOrigin.Answer(
                headers: ["Cache-Control": "max-age=3600"], body: Data(repeating: 0x61, count: size))
        }
        let client = Client<TestEndpoint>(middleware: [cache], transport: origin)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<4 {
                group.addTask {
                    for index in 0..<40 {
                        // Sizes from 1 to 20 KiB, each URL once.
                        let size = 1024 + (task * 40 + index) * 7919 % (19 * 1024)
                        _ = try await client.request(Self.endpoint("\(task)/\(index)/\(size)"))
                    }
                }
            }
            try await group.waitForAll()
        }
        let measured = peaks.withLock { $0 }
        #expect(measured.count == 160)
        #expect(measured.allSatisfy { $0 <= bound }, "largest: \(measured.max() ?? 0) bytes")
        #expect(Self.folderBytes(folder) <= bound)
        // Full, not emptied: the newest entries stay.
        #expect(Self.folderBytes(folder) > bound / 2)
    }

    @Test("a response larger than the folder's bound is not stored, and older entries go least recently used first")
    func tooLargeAndEviction() async throws {
        let folder = CacheStoreKind.newFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = CacheTestOrigin(clock: clock) { request, _ in
            let size = request.url?.lastPathComponent == "big" ? 5000 : 1000
            return CacheTestOrigin.Answer(
                headers: ["Cache-Control": "max-age=3600"], body: Data(repeating: 0x62, count: size))
        }
        let client = Client<TestEndpoint>(middleware: [cache(folder, maximumBytes: 4000)], transport: origin)
        _ = try await client.request(Self.endpoint("big"))
        #expect(Self.entries(in: folder).isEmpty)
        for path in ["a", "b", "c"] { _ = try await client.request(Self.endpoint(path)) }
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("a"))) == .hit)  // b is now the oldest used
        _ = try await client.request(Self.endpoint("d"))
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("b"))) == .network)
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("d"))) == .hit)
        #expect(Self.folderBytes(folder) <= 4000)
    }

    @Test("a torn, altered or misplaced entry is never served: the call goes to the network and replaces it")
    func damagedEntries() async throws {
        let folder = CacheStoreKind.newFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = origin()
        do {
            let client = Client<TestEndpoint>(middleware: [cache(folder)], transport: origin)
            for path in ["torn", "altered", "moved", "donor"] { _ = try await client.request(Self.endpoint(path)) }
        }
        let files = Self.entries(in: folder)
        func file(holding text: String) throws -> URL {
            try #require(files.first { (try? Data(contentsOf: $0))?.range(of: Data(text.utf8)) != nil })
        }
        let torn = try file(holding: "/v1/torn#0")
        let altered = try file(holding: "/v1/altered#1")
        let moved = try file(holding: "/v1/moved#2")
        let donor = try file(holding: "/v1/donor#3")
        // Cut short, as a crash mid-write would leave it.
        let tornBytes = try Data(contentsOf: torn)
        try tornBytes.prefix(tornBytes.count - 10).write(to: torn)
        // Whole, but one byte of its body changed.
        var alteredBytes = try Data(contentsOf: altered)
        let body = try #require(alteredBytes.range(of: Data("/v1/altered#1".utf8)))
        alteredBytes[body.lowerBound] = UInt8(ascii: "X")
        try alteredBytes.write(to: altered)
        // Another URL's intact entry under this URL's name.
        try FileManager.default.removeItem(at: moved)
        try FileManager.default.copyItem(at: donor, to: moved)

        let client = Client<TestEndpoint>(middleware: [cache(folder)], transport: origin)
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("donor"))) == .hit)
        for (index, path) in ["torn", "altered", "moved"].enumerated() {
            let response = try await client.request(Self.endpoint(path))
            #expect(HTTPCache.Outcome(response) == .network, "\(path)")
            #expect(response.string() == "/v1/\(path)#\(index + 4)")
            // The new answer replaced the damaged file.
            #expect(HTTPCache.Outcome(try await client.request(Self.endpoint(path))) == .hit, "\(path)")
        }
    }

    @Test("a hit on an entry kept in memory counts as a use: the folder evicts the least recently used instead")
    func memoryHitsCountAsUses() async throws {
        let folder = CacheStoreKind.newFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bound = 20_000
        let origin = CacheTestOrigin(clock: clock) { _, _ in
            CacheTestOrigin.Answer(headers: ["Cache-Control": "max-age=3600"], body: Data(repeating: 0x63, count: 500))
        }
        let client = Client<TestEndpoint>(middleware: [cache(folder, maximumBytes: bound)], transport: origin)
        for path in ["a", "b", "c"] { _ = try await client.request(Self.endpoint(path)) }
        // a is kept in memory (a quarter of the bound holds five entries): this hit reads no file.
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("a"))) == .hit)
        #expect(Self.entries(in: folder).count == 3)
        let fileSize = (Self.folderBytes(folder) - 32) / 3  // three equal entries beside the 32-byte salt
        // Enough more entries for exactly one eviction: b's, the least recently used.
        let fitting = (bound - 32) / fileSize
        for index in 0..<(fitting - 2) { _ = try await client.request(Self.endpoint("x\(index)")) }
        #expect(Self.folderBytes(folder) <= bound)
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("b"))) == .network)
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("a"))) == .hit)
    }

    @Test("credentials a Vary names are on disk only as salted digests, yet select their response")
    func credentialsNotInClear() async throws {
        let folder = CacheStoreKind.newFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = CacheTestOrigin(clock: clock) { request, index in
            CacheTestOrigin.Answer(
                headers: [
                    "Cache-Control": "private, max-age=3600", "Vary": "Authorization, Cookie, Proxy-Authorization",
                ],
                body: Data("for #\(index)".utf8))
        }
        let client = Client<TestEndpoint>(middleware: [cache(folder)], transport: origin)
        let secrets = [
            "Authorization": "Bearer tok-SECRET-4711", "Cookie": "sid=COOKIE-SECRET-99",
            "Proxy-Authorization": "Basic UFJPWFktU0VDUkVU",
        ]
        _ = try await client.request(Self.endpoint("me", headers: secrets))
        let same = try await client.request(Self.endpoint("me", headers: secrets))
        #expect(HTTPCache.Outcome(same) == .hit)
        var other = secrets
        other["Authorization"] = "Bearer someone-else"
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("me", headers: other))) == .network)
        let everything = try FileManager.default.contentsOfDirectory(atPath: folder.path).map {
            try Data(contentsOf: folder.appendingPathComponent($0))
        }
        #expect(Self.entries(in: folder).count == 2)
        for secret in ["tok-SECRET-4711", "COOKIE-SECRET-99", "UFJPWFktU0VDUkVU", "someone-else"] {
            #expect(everything.allSatisfy { $0.range(of: Data(secret.utf8)) == nil }, "\(secret)")
        }
    }

    @Test("two caches made for one folder share its entries; removeAll deletes the files")
    func sharedFolder() async throws {
        let folder = CacheStoreKind.newFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = origin()
        let first = cache(folder)
        let second = cache(folder)
        let one = Client<TestEndpoint>(middleware: [first], transport: origin)
        let two = Client<TestEndpoint>(middleware: [second], transport: origin)
        _ = try await one.request(Self.endpoint("shared"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<100 {
                group.addTask {
                    let response = try await (index.isMultiple(of: 2) ? one : two).request(Self.endpoint("shared"))
                    #expect(response.string() == "/v1/shared#0")
                }
            }
            try await group.waitForAll()
        }
        #expect(origin.requests.count == 1)
        #expect(first.statistics.hits + second.statistics.hits == 100)
        await second.removeAll()
        #expect(Self.entries(in: folder).isEmpty)
        #expect(HTTPCache.Outcome(try await one.request(Self.endpoint("shared"))) == .network)
    }

    @Test("a file, or a folder others may write to, is not used: calls still go to the network, with a warning")
    func unusableFolder() async throws {
        let base = CacheStoreKind.newFolder()
        defer { try? FileManager.default.removeItem(at: base) }
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        let file = base.appendingPathComponent("plain-file")
        try Data("x".utf8).write(to: file)
        let open = base.appendingPathComponent("open")
        try FileManager.default.createDirectory(at: open, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: open.path)
        try await LogCapture.capture("warning") { sink in
            for folder in [file, open] {
                let origin = origin()
                let client = Client<TestEndpoint>(middleware: [cache(folder)], transport: origin)
                for _ in 0..<2 {
                    let response = try await client.request(Self.endpoint("x"))
                    #expect(HTTPCache.Outcome(response) == .network)
                }
                #expect(origin.requests.count == 2)
            }
            let warnings = sink.entries.map(\.message).filter { $0.contains("nothing is cached there") }
            #expect(warnings.count == 2)
            #expect(warnings.contains { $0.contains("is not a folder") })
            #expect(warnings.contains { $0.contains("may be written by other users") })
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: open.path).isEmpty)
    }

    @Test("two spellings of one folder (through a link) share one store, and the folder is used")
    func linkedFolder() async throws {
        let base = CacheStoreKind.newFolder()
        defer { try? FileManager.default.removeItem(at: base) }
        let target = base.appendingPathComponent("target")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        let link = base.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let origin = origin()
        let one = Client<TestEndpoint>(middleware: [cache(target)], transport: origin)
        let two = Client<TestEndpoint>(middleware: [cache(link)], transport: origin)
        _ = try await one.request(Self.endpoint("linked"))
        #expect(HTTPCache.Outcome(try await two.request(Self.endpoint("linked"))) == .hit)
        #expect(Self.entries(in: target).count == 1)
    }
}
