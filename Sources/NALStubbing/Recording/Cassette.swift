import Dispatch
import Foundation
import NALCore
import NALLogging

/// A HAR file being recorded, written as entries arrive.
///
/// Appending costs the same whatever the cassette's size: the file ends with a fixed trailer (`]}}`), and each
/// new entry is written over it, with the trailer after it, in one write at a known offset; nothing already
/// written is read or rewritten, and no entry is kept in memory. The first append rewrites the file once (through
/// a temporary file renamed over it) in this layout, with the entries the cassette was loaded with. Writes run on a
/// serial queue of their own, in the order requests completed, never on the caller's thread.
///
/// A crash in the middle of an append can leave the last entry cut short; loading such a cassette fails with the
/// line and column where it ends.
///
/// Recorders of one process that name the same file share one `Cassette` (`shared(file:entries:)`), so their
/// entries are appended one after the other. Another process writing the same file is noticed (the file is not
/// the size and inode this cassette left): the entry is then not written, and the failure says why, rather than
/// overwriting the other's entries.
final class Cassette: Sendable {
    let file: URL
    private struct State: Sendable {
        /// Entries to write first: what the cassette was loaded with, until the file is rewritten.
        var pending: [HARDocument.Entry]
        /// Where the trailer starts, once the file has this layout.
        var trailerOffset: Int64?
        /// Values of cookies the servers set, redacted from every later entry.
        var cookieSecrets: Set<String> = []
        /// The file's device, inode and size after this cassette's last write.
        var written: [UInt64]?
    }

    private struct Weak: @unchecked Sendable {
        // @unchecked: a weak reference to a Sendable object, read and written under the registry's lock.
        weak var cassette: Cassette?
    }

    private static let registry = Locked<[String: Weak]>([:])

    /// The cassette of this process for `file`: the one another recorder already writes, or a new one.
    static func shared(file: URL, entries: [HARDocument.Entry] = []) -> Cassette {
        let key = file.standardizedFileURL.path
        return registry.withLock { registry in
            if let existing = registry[key]?.cassette { return existing }
            registry = registry.filter { $0.value.cassette != nil }
            let cassette = Cassette(file: file, entries: entries)
            registry[key] = Weak(cassette: cassette)
            return cassette
        }
    }

    private let state: Locked<State>
    private let queue = DispatchQueue(label: "dev.nal.stubbing.cassette")

    private static let header = Data(
        "{\n  \"log\" : {\n    \"creator\" : {\n      \"name\" : \"NAL\",\n      \"version\" : \"1\"\n    },\n    \"version\" : \"1.2\",\n    \"entries\" : [\n"
            .utf8)
    private static let trailer = Data("\n    ]\n  }\n}\n".utf8)

    init(file: URL, entries: [HARDocument.Entry] = []) {
        self.file = file
        state = Locked(State(pending: entries))
    }

    /// Checks that the cassette can be written (creating its directory), so that a request is not sent only to
    /// lose its recording.
    func checkWritable() throws(FixtureError) {
        do {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw FixtureError(
                file: file, message: "cannot create the cassette's directory: \(error.localizedDescription)")
        }
        // A file of our own beside it, removed at once: the cassette itself is created only with its first entry,
        // so that a first call that fails leaves no empty cassette for the next run to choke on.
        let probe = file.deletingLastPathComponent().appendingPathComponent(".nal-probe-\(UUID().uuidString)")
        let descriptor = open(probe.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw FixtureError(file: file, message: "cannot be written: \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        unlink(probe.path)
    }

    /// Records an exchange, redacted, with the cookie values learned from earlier responses and the secrets of the
    /// URL that redirects led to (`finalURL`), which the server may echo.
    func append(
        method: String, url: URL, finalURL: URL? = nil, requestHeaders: [String: String], requestBody: Data?,
        status: Int, responseHeaders: [String: String], responseBody: Data?, started: Date, duration: Duration
    ) async throws(FixtureError) {
        var known = state.withLock { state in
            var redactor = HARRedactor(knownSecrets: state.cookieSecrets)
            redactor.learnSecrets(responseHeaders: responseHeaders)
            state.cookieSecrets = redactor.secrets
            return state.cookieSecrets
        }
        if let finalURL, finalURL != url {
            var redactor = HARRedactor(knownSecrets: known)
            redactor.learnSecrets(redirectedTo: finalURL)
            known = redactor.secrets
        }
        try await append(
            .recorded(
                method: method, url: url, requestHeaders: requestHeaders, requestBody: requestBody, status: status,
                responseHeaders: responseHeaders, responseBody: responseBody, started: started, duration: duration,
                knownSecrets: known))
    }

    /// Adds `entry` to the file.
    func append(_ entry: HARDocument.Entry) async throws(FixtureError) {
        let result: Result<Void, FixtureError> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(FixtureError) {
                    try self.write(entry)
                    continuation.resume(returning: .success(()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        try result.get()
    }

    /// The whole cassette as it is on disk.
    func contents() -> Data {
        queue.sync {
            let (pending, rewritten) = state.withLock { ($0.pending, $0.trailerOffset != nil) }
            if rewritten, let written = try? Data(contentsOf: file) { return written }
            return HARDocument(log: HARDocument.Log(entries: pending)).encoded()
        }
    }

    /// Runs on `queue`.
    private func write(_ entry: HARDocument.Entry) throws(FixtureError) {
        let encoded: Data
        do {
            encoded = try Self.encoder.encode(entry)
        } catch {
            throw FixtureError(file: file, message: "cannot encode an entry: \(error)")
        }
        let (pending, offset) = state.withLock { ($0.pending, $0.trailerOffset) }
        if let offset {
            let expected = state.withLock { $0.written }
            let written = try writeAt(offset, Data(",\n".utf8) + encoded + Self.trailer, expecting: expected)
            state.withLock {
                $0.trailerOffset = offset + 2 + Int64(encoded.count)
                $0.written = written
            }
            return
        }
        var body = Self.header
        let encoder = Self.encoder
        for existing in pending {
            body += ((try? encoder.encode(existing)) ?? Data()) + Data(",\n".utf8)
        }
        body += encoded
        let trailerOffset = Int64(body.count)
        body += Self.trailer
        do {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try body.write(to: file, options: .atomic)
        } catch {
            throw FixtureError(file: file, message: "cannot write the cassette: \(error.localizedDescription)")
        }
        let written = Self.identity(ofFileAt: file)
        state.withLock { state in
            state.pending = []
            state.trailerOffset = trailerOffset
            state.written = written
        }
    }

    /// The device, inode and size of the file at `url`.
    private static func identity(ofFileAt url: URL) -> [UInt64]? {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }
        return [UInt64(info.st_dev), UInt64(info.st_ino), UInt64(info.st_size)]
    }

    /// Writes `data` at `offset` under the file's lock, if the file is still the one this cassette left
    /// (`expected`); returns what it is after.
    private func writeAt(_ offset: Int64, _ data: Data, expecting expected: [UInt64]?) throws(FixtureError) -> [UInt64]?
    {
        let descriptor = open(file.path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            throw FixtureError(file: file, message: "cannot write the cassette: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        _ = flock(descriptor, LOCK_EX)
        var info = stat()
        guard fstat(descriptor, &info) == 0,
            expected == nil || expected == [UInt64(info.st_dev), UInt64(info.st_ino), UInt64(info.st_size)]
        else {
            throw FixtureError(
                file: file,
                message:
                    "changed on disk since this recorder last wrote it (another process recording into it?); this "
                    + "entry was not written, so that the other's entries are not overwritten")
        }
        let failure: Int32? = data.withUnsafeBytes { bytes in
            var written = 0
            while written < bytes.count {
                let count = pwrite(
                    descriptor, bytes.baseAddress.map { $0 + written }, bytes.count - written,
                    off_t(offset) + off_t(written))
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += count
            }
            return nil
        }
        if let failure {
            throw FixtureError(file: file, message: "cannot write the cassette: \(String(cString: strerror(failure)))")
        }
        guard fstat(descriptor, &info) == 0 else { return nil }
        return [UInt64(info.st_dev), UInt64(info.st_ino), UInt64(info.st_size)]
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
