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
final class Cassette: Sendable {
    let file: URL
    private struct State: Sendable {
        /// Entries to write first: what the cassette was loaded with, until the file is rewritten.
        var pending: [HARDocument.Entry]
        /// Where the trailer starts, once the file has this layout.
        var trailerOffset: Int64?
        /// Values of cookies the servers set, redacted from every later entry.
        var cookieSecrets: Set<String> = []
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
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else {
            throw FixtureError(file: file, message: "cannot be written: \(String(cString: strerror(errno)))")
        }
        close(descriptor)
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
            try writeAt(offset, Data(",\n".utf8) + encoded + Self.trailer)
            state.withLock { $0.trailerOffset = offset + 2 + Int64(encoded.count) }
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
        state.withLock { state in
            state.pending = []
            state.trailerOffset = trailerOffset
        }
    }

    private func writeAt(_ offset: Int64, _ data: Data) throws(FixtureError) {
        let descriptor = open(file.path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            throw FixtureError(file: file, message: "cannot write the cassette: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
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
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
