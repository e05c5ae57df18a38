package import Foundation
import NALLogging

#if canImport(FoundationNetworking)
    package import FoundationNetworking
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One download to its destination: the partial file beside it, resuming after an interruption, and the atomic
/// move into place. It decides where each response's body goes (`BodyRouting`): a success goes to the file, and
/// anything else (a 404, a redirect) stays in memory for the caller to see. Both `URLSessionTransport` and
/// `StubTransport` run downloads through it.
package final class DownloadJob: BodyRouting {
    private struct State: Sendable {
        /// The destination, once resolved.
        var destination: URL?
        var writer: FileWriter?
        /// Whether the destination is a character device written as it is, with no partial file.
        var intoDevice = false
        /// Where the current exchange asked the body to start (`Range: bytes=N-`); 0 for the whole body.
        var requestedOffset: Int64 = 0
        /// The strong ETag or Last-Modified of the file being written, for `If-Range`.
        var validator: String?
        /// Whether the server serves byte ranges of this file.
        var acceptsRanges = false
        /// Whether the server answered in a way that another attempt would not change (a wrong range).
        var brokeProtocol = false
    }

    /// What a download makes of a final response (not a redirect).
    package enum Conclusion: Sendable {
        /// The file is in place; the response to report (a synthesized 200 when a 416 said the kept partial file
        /// was already complete).
        case downloaded(URL, HTTPURLResponse)
        /// The kept partial file was not what the server has: it is gone, and the download starts again.
        case restart
        /// No file: the response (a 404, say) is the answer, with its body in memory.
        case notDownloaded
    }

    /// Interruptions one call resumes from at most.
    static let maximumResumes = 20

    private let spec: DownloadDestination
    /// The URL and, for a fixed destination, its path: what finds a resume record.
    private let recordKey: String
    /// Where the resume record lives, when the destination is resumable.
    private let recordDirectory: URL?
    private let state: Locked<State>

    /// A job for downloading `request` to `destination`. A `.resumable` destination looks for a partial file that
    /// an earlier call kept, through its record in the destination's directory.
    package init(_ destination: DownloadDestination, for request: URLRequest) {
        spec = destination
        recordKey = (request.url?.absoluteString ?? "") + "\n" + (destination.knownFile?.path ?? "")
        var initial = State()
        var directory: URL?
        if destination.options.contains(.resumable), let url = request.url {
            directory =
                destination.knownDirectory
                ?? HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: nil).map {
                    destination.url(for: $0).deletingLastPathComponent()
                }
        }
        if let directory, let record = ResumeRecord.read(for: recordKey, in: directory),
            URL(fileURLWithPath: record.destination).deletingLastPathComponent().standardizedFileURL.path
                == directory.standardizedFileURL.path,
            let writer = try? FileWriter(
                url: directory.appendingPathComponent(record.partialName), role: .temporaryFile,
                mode: .appendToOwnFile),
            writer.identity == (record.device, record.inode), writer.size > 0
        {
            initial.writer = writer
            initial.destination = URL(fileURLWithPath: record.destination)
            initial.validator = record.validator
            initial.acceptsRanges = true
            initial.requestedOffset = writer.size
        }
        recordDirectory = directory
        state = Locked(initial)
    }

    /// The headers that ask for the rest of the file, when the next exchange resumes: `Range` and `If-Range`.
    package var resumeHeaders: [String: String] {
        state.withLock { state in
            guard state.requestedOffset > 0, let validator = state.validator else { return [:] }
            return ["Range": "bytes=\(state.requestedOffset)-", "If-Range": validator]
        }
    }

    package func route(for response: HTTPURLResponse) throws(NALError) -> BodyRoute {
        guard (200..<300).contains(response.statusCode) else { return .memory }
        return try state.withLock { state throws(NALError) -> BodyRoute in
            let writer = try openWriter(&state, for: response)
            let length = response.expectedContentLength
            if state.intoDevice { return .file(alreadyReceived: 0, total: length >= 0 ? length : nil) }
            let encoded = response.value(forHTTPHeaderField: "Content-Encoding").map { $0.lowercased() != "identity" }
            state.acceptsRanges =
                encoded != true
                && (response.statusCode == 206
                    || response.value(forHTTPHeaderField: "Accept-Ranges")?.lowercased().contains("bytes") == true)
            if let validator = Self.validator(of: response) { state.validator = validator }
            if response.statusCode == 206 {
                let header = response.value(forHTTPHeaderField: "Content-Range")
                guard state.requestedOffset > 0, let range = header.flatMap(ContentRange.init),
                    range.start == state.requestedOffset, writer.size == state.requestedOffset
                else {
                    // The server will answer the same way again: resuming would only repeat it.
                    state.brokeProtocol = true
                    throw .transport(
                        URLError(
                            .cannotParseResponse,
                            userInfo: [
                                NSLocalizedDescriptionKey:
                                    "the server sent a range (\(header.map(DisplayText.capped) ?? "no Content-Range")) "
                                    + "other than the one asked for (bytes=\(state.requestedOffset)-)",
                                NSURLErrorFailingURLErrorKey: response.url as Any,
                            ]))
                }
                return .file(alreadyReceived: state.requestedOffset, total: range.total)
            }
            // The whole body: the server ignored the range, or the file changed since. Start again.
            if writer.size > 0 { try destinationError(state) { () throws(NALError) in try writer.truncate() } }
            state.requestedOffset = 0
            return .file(alreadyReceived: 0, total: length >= 0 ? length : nil)
        }
    }

    package func write(_ data: Data) throws(NALError) {
        guard let (writer, destination) = state.withLock({ state in state.writer.map { ($0, state.destination) } })
        else { return }
        do {
            try writer.append(data)
        } catch {
            throw Self.asDestinationError(error, destination)
        }
    }

    /// Whether the call can continue after `error` with a range request, and if so prepares it: bytes of this file
    /// were written, the server serves ranges, the file has a validator to check it has not changed, and the
    /// server did not break the protocol.
    package func prepareResume(after error: NALError) -> Bool {
        switch error {
        case .transport: break
        case .timedOut(let failure) where failure.limit == .idle: break
        default: return false
        }
        return state.withLock { state in
            guard !state.brokeProtocol, !state.intoDevice, let writer = state.writer, state.acceptsRanges,
                state.validator != nil
            else { return false }
            let size = writer.size
            guard size > 0 else { return false }
            state.requestedOffset = size
            return true
        }
    }

    /// What the final `response` means for the download: a 2xx moves the file into place; a 416 to a range
    /// request completes the download when its `Content-Range: bytes */N` says the kept file is whole, and
    /// otherwise throws the kept file away to start again; anything else leaves no file.
    package func conclude(_ response: HTTPURLResponse) throws(NALError) -> Conclusion {
        if (200..<300).contains(response.statusCode) {
            return .downloaded(try finish(), response)
        }
        let (requested, size) = state.withLock { ($0.requestedOffset, $0.writer?.size) }
        guard response.statusCode == 416, requested > 0, let size else {
            abandon()
            return .notDownloaded
        }
        let range = response.value(forHTTPHeaderField: "Content-Range").flatMap(ContentRange.init)
        if let range, range.range == nil, range.total == size, size == requested, let url = response.url {
            let file = try finish()
            var headers: [String: String] = [:]
            for (name, value) in response.allHeaderFields {
                guard let name = name as? String, let value = value as? String,
                    !["content-range", "content-length", "content-type"].contains(name.lowercased())
                else { continue }
                headers[name] = value
            }
            headers["Content-Length"] = String(size)
            let complete =
                HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: headers) ?? response
            return .downloaded(file, complete)
        }
        discardKeptFile()
        return .restart
    }

    /// Closes the partial file and moves it into place atomically (a device destination is just closed); returns
    /// the destination.
    package func finish() throws(NALError) -> URL {
        let (writer, destination, intoDevice) = state.withLock { ($0.writer, $0.destination, $0.intoDevice) }
        guard let writer, let destination else {
            throw .file(FileFailure(role: .downloadDestination, problem: .missing, url: URL(fileURLWithPath: "/")))
        }
        do {
            try writer.close(publishing: !intoDevice)
        } catch {
            throw Self.asDestinationError(error, destination)
        }
        if intoDevice { return destination }
        try Self.move(writer.url, to: destination, replacing: spec.options.contains(.replaceExistingFile))
        if let recordDirectory { ResumeRecord.remove(for: recordKey, in: recordDirectory) }
        return destination
    }

    /// Ends a failed download: removes the partial file, or keeps it with a resume record when the destination is
    /// `.resumable` and the file can be resumed.
    package func abandon() {
        let (writer, destination, validator, acceptsRanges, intoDevice) = state.withLock {
            ($0.writer, $0.destination, $0.validator, $0.acceptsRanges, $0.intoDevice)
        }
        guard let writer, let destination else { return }
        if let recordDirectory, !intoDevice, acceptsRanges, let validator, (try? writer.close()) != nil,
            writer.size > 0
        {
            ResumeRecord(
                source: recordKey, validator: validator, destination: destination.path,
                partialName: writer.url.lastPathComponent, device: writer.identity.device,
                inode: writer.identity.inode
            ).write(in: recordDirectory)
            return
        }
        writer.abandon()
        if !intoDevice { unlink(writer.url.path) }
        if let recordDirectory { ResumeRecord.remove(for: recordKey, in: recordDirectory) }
    }

    /// Throws away a kept partial file and its record, so that the next exchange asks for the whole body.
    private func discardKeptFile() {
        let writer = state.withLock { state -> FileWriter? in
            defer {
                state.writer = nil
                state.requestedOffset = 0
                state.validator = nil
                state.acceptsRanges = false
            }
            return state.writer
        }
        writer?.abandon()
        if let writer { unlink(writer.url.path) }
        if let recordDirectory { ResumeRecord.remove(for: recordKey, in: recordDirectory) }
    }

    // MARK: Preparing the destination

    private func openWriter(_ state: inout State, for response: HTTPURLResponse) throws(NALError) -> FileWriter {
        if let writer = state.writer { return writer }
        let destination = state.destination ?? spec.url(for: response)
        state.destination = destination
        let writer: FileWriter
        if try Self.check(destination, options: spec.options) == .device {
            state.intoDevice = true
            writer = try FileWriter(url: destination, role: .downloadDestination, mode: .device)
        } else {
            writer = try destinationError(state) { () throws(NALError) -> FileWriter in
                try FileWriter(url: Self.partialURL(for: destination), role: .temporaryFile, mode: .createNew)
            }
        }
        state.writer = writer
        return writer
    }

    /// `.name.nal-partial-<random>` beside the destination: a name nobody can know in advance.
    static func partialURL(for destination: URL) -> URL {
        let random = (0..<2).map { _ in String(UInt64.random(in: 0...UInt64.max), radix: 16) }.joined()
        return destination.deletingLastPathComponent().appendingPathComponent(
            ".\(destination.lastPathComponent).nal-partial-\(random)")
    }

    private enum DestinationKind { case file, device }

    /// What the destination is: a regular file (or nothing yet) is replaced by rename, a character device is written
    /// as it is; a directory, a FIFO or a socket is refused, as is a file that may not be replaced. Creates parent
    /// directories when asked.
    private static func check(
        _ destination: URL, options: DownloadDestination.Options
    ) throws(NALError) -> DestinationKind {
        var info = stat()
        if stat(destination.path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFCHR: return .device
            case S_IFDIR: throw .file(FileFailure(role: .downloadDestination, problem: .isDirectory, url: destination))
            case S_IFREG: break
            default: throw .file(FileFailure(role: .downloadDestination, problem: .notRegularFile, url: destination))
            }
            if !options.contains(.replaceExistingFile) {
                throw .file(FileFailure(role: .downloadDestination, problem: .alreadyExists, url: destination))
            }
        }
        let directory = destination.deletingLastPathComponent()
        guard !FileManager.default.fileExists(atPath: directory.path) else { return .file }
        guard options.contains(.createIntermediateDirectories) else {
            throw .file(FileFailure(role: .downloadDestination, problem: .missing, url: destination))
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .file(
                FileFailure(role: .downloadDestination, problem: .notWritable, url: destination, underlying: error))
        }
        return .file
    }

    /// Moves the finished file into place. `rename` replaces atomically (a link at the destination is replaced,
    /// never followed). Without replacing, `link` refuses an existing file atomically; on a file system without
    /// hard links, an empty file created exclusively reserves the name and the rename replaces it.
    static func move(
        _ partial: URL, to destination: URL, replacing: Bool,
        link makeLink: (String, String) -> Int32 = { link($0, $1) }
    ) throws(NALError) {
        if !replacing {
            let linked = makeLink(partial.path, destination.path)
            let code = errno
            if linked == 0 {
                unlink(partial.path)
                return
            }
            guard [EPERM, ENOTSUP, EOPNOTSUPP, ENOSYS, EMLINK, EXDEV].contains(code) else {
                unlink(partial.path)
                throw FileAccess.failure(.downloadDestination, destination, errno: code, writing: true)
            }
            let placeholder = open(destination.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard placeholder >= 0 else {
                let code = errno
                unlink(partial.path)
                throw FileAccess.failure(.downloadDestination, destination, errno: code, writing: true)
            }
            close(placeholder)
        }
        guard rename(partial.path, destination.path) == 0 else {
            let code = errno
            unlink(partial.path)
            throw FileAccess.failure(.downloadDestination, destination, errno: code, writing: true)
        }
    }

    private func destinationError<Value>(
        _ state: State, _ body: () throws(NALError) -> Value
    ) throws(NALError) -> Value {
        do {
            return try body()
        } catch {
            throw Self.asDestinationError(error, state.destination)
        }
    }

    /// A partial file's failure, reported for the destination the caller named.
    private static func asDestinationError(_ error: NALError, _ destination: URL?) -> NALError {
        guard case .file(let failure) = error, let destination else { return error }
        return .file(
            FileFailure(
                role: .downloadDestination, problem: failure.problem, url: destination, underlying: failure.underlying))
    }

    /// A strong ETag, or else Last-Modified: what `If-Range` may carry (RFC 9110, 13.1.5).
    private static func validator(of response: HTTPURLResponse) -> String? {
        if let tag = response.value(forHTTPHeaderField: "ETag"), !tag.hasPrefix("W/"), !tag.isEmpty { return tag }
        return response.value(forHTTPHeaderField: "Last-Modified")
    }
}
