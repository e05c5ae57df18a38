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
        /// The whole file's size, once a response said it (Content-Length of a 200, the total of a 206).
        var expectedTotal: Int64?
        /// The size the file must reach with this response: where its range ends, or its Content-Length.
        var expectedEnd: Int64?
        /// The record last written for the file, so that it is not written again unchanged.
        var record: ResumeRecord?
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

    /// How long a download waits for another call that still writes the partial file it would resume (a call just
    /// cancelled, cleaning up) before it starts a file of its own.
    static let claimPatience: Duration = .seconds(1)

    /// A job for downloading `request` to `destination`. A `.resumable` destination looks for a partial file that
    /// an earlier call kept, through its record in the destination's directory, and claims it (an exclusive lock):
    /// while another call still writes that file, it waits up to `claimPatience`, then starts a file of its own.
    package static func make(_ destination: DownloadDestination, for request: URLRequest) async -> DownloadJob {
        let recordKey = (request.url?.absoluteString ?? "") + "\n" + (destination.knownFile?.path ?? "")
        var directory: URL?
        if destination.options.contains(.resumable), let url = request.url {
            directory =
                destination.knownDirectory
                ?? HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: nil).map {
                    destination.url(for: $0).deletingLastPathComponent()
                }
        }
        var kept: (ResumeRecord, FileWriter)?
        if let directory {
            let giveUp = ContinuousClock.now + claimPatience
            claiming: while true {
                let claimed = (try? await FileAccess.offThread { claim(recordKey, in: directory) }) ?? .nothing
                switch claimed {
                case .claimed(let record, let writer):
                    kept = (record, writer)
                    break claiming
                case .nothing:
                    break claiming
                case .busy:
                    guard ContinuousClock.now < giveUp, (try? await Task.sleep(for: .milliseconds(10))) != nil else {
                        break claiming
                    }
                }
            }
        }
        return DownloadJob(destination, recordKey: recordKey, recordDirectory: directory, kept: kept)
    }

    private init(
        _ destination: DownloadDestination, recordKey: String, recordDirectory: URL?, kept: (ResumeRecord, FileWriter)?
    ) {
        spec = destination
        self.recordKey = recordKey
        self.recordDirectory = recordDirectory
        var initial = State()
        if let (record, writer) = kept {
            initial.writer = writer
            initial.destination = URL(fileURLWithPath: record.destination)
            initial.validator = record.validator
            initial.acceptsRanges = true
            initial.requestedOffset = writer.size
            initial.expectedTotal = record.total
            initial.record = record
        }
        state = Locked(initial)
    }

    private enum Claim: Sendable {
        case claimed(ResumeRecord, FileWriter)
        /// Another call holds the file.
        case busy
        case nothing
    }

    /// The kept partial file the record for `recordKey` names, opened and locked: only if it is still the same
    /// regular file of this user, with bytes in it, and the record still names it once the lock is ours (its last
    /// writer may have finished or thrown it away meanwhile).
    private static func claim(_ recordKey: String, in directory: URL) -> Claim {
        guard let record = ResumeRecord.read(for: recordKey, in: directory),
            URL(fileURLWithPath: record.destination).deletingLastPathComponent().standardizedFileURL.path
                == directory.standardizedFileURL.path,
            let writer = try? FileWriter(
                url: directory.appendingPathComponent(record.partialName), role: .temporaryFile,
                mode: .appendToOwnFile),
            writer.identity == (record.device, record.inode)
        else { return .nothing }
        guard writer.tryLock() else {
            writer.abandon()
            return .busy
        }
        // Locked: re-read the record, which the last writer completes (with `changed`) before it lets go.
        var info = stat()
        guard let current = ResumeRecord.read(for: recordKey, in: directory), current.partialName == record.partialName,
            current.changed != nil, current.changed == writer.statusChangeTime, stat(writer.url.path, &info) == 0,
            (UInt64(info.st_dev), UInt64(info.st_ino)) == writer.identity, writer.size > 0
        else {
            writer.abandon()
            return .nothing
        }
        return .claimed(current, writer)
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
                    let bounds = range.range, bounds.start == state.requestedOffset,
                    writer.size == state.requestedOffset,
                    // A part of another file's size would complete the kept file wrongly. (A part longer than its
                    // range is stopped as it is written, one shorter when it ends: see `expectedEnd`.)
                    range.total == nil || state.expectedTotal == nil || range.total == state.expectedTotal
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
                if let total = range.total { state.expectedTotal = total }
                state.expectedEnd = (range.range?.end ?? -1) + 1
                keepRecord(&state, writer)
                return .file(alreadyReceived: state.requestedOffset, total: range.total)
            }
            // The whole body: the server ignored the range, or the file changed since. Start again.
            if writer.size > 0 { try destinationError(state) { () throws(NALError) in try writer.truncate() } }
            state.requestedOffset = 0
            let plain = encoded != true && length >= 0
            state.expectedTotal = plain ? length : nil
            state.expectedEnd = plain ? length : nil
            keepRecord(&state, writer)
            return .file(alreadyReceived: 0, total: length >= 0 ? length : nil)
        }
    }

    /// Writes the resume record as soon as the file can be resumed, while it is being written: a call made while
    /// this one still cleans up (or after this process died) finds the file, and waits for its lock.
    private func keepRecord(_ state: inout State, _ writer: FileWriter) {
        guard let recordDirectory, !state.intoDevice, state.acceptsRanges, let validator = state.validator,
            let destination = state.destination
        else { return }
        let record = ResumeRecord(
            source: recordKey, validator: validator, destination: destination.path,
            partialName: writer.url.lastPathComponent, device: writer.identity.device,
            inode: writer.identity.inode, total: state.expectedTotal)
        guard record != state.record else { return }
        record.write(in: recordDirectory)
        state.record = record
    }

    package func write(_ data: Data) throws(NALError) {
        let found = try state.withLock { state throws(NALError) -> (FileWriter, URL?)? in
            guard let writer = state.writer else { return nil }
            if let end = state.expectedEnd, writer.size + Int64(data.count) > end {
                // More than the range or length the server announced: a server answering this way again would do
                // the same, so the download stops here rather than writing a file of the wrong size.
                state.brokeProtocol = true
                throw .transport(
                    URLError(
                        .cannotParseResponse,
                        userInfo: [
                            NSLocalizedDescriptionKey:
                                "the server sent more bytes than its Content-Range or Content-Length announced "
                                + "(the file would pass \(end) bytes)"
                        ]))
            }
            return (writer, state.destination)
        }
        guard let (writer, destination) = found else { return }
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
        case .transport(let urlError) where Self.resumableCodes.contains(urlError.code): break
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

    /// Failures of the connection, which another exchange may not meet; a body that cannot be decoded or parsed
    /// would fail the same way again.
    static let resumableCodes: Set<URLError.Code> = [
        .networkConnectionLost, .timedOut, .cannotConnectToHost, .notConnectedToInternet, .cannotFindHost,
        .dnsLookupFailed, .secureConnectionFailed, .resourceUnavailable,
    ]

    /// `conclude(_:)` on a thread of its own: moving a file into place syncs it to disk, which must not hold up
    /// a Swift concurrency thread.
    package func concludeOffThread(_ response: HTTPURLResponse) async throws(NALError) -> Conclusion {
        try await FileAccess.offThread { () throws(NALError) in try self.conclude(response) }
    }

    /// `abandon()` on a thread of its own, for the same reason.
    package func abandonOffThread() async {
        _ = try? await FileAccess.offThread { self.abandon() }
    }

    /// What the final `response` means for the download: a 2xx moves the file into place; a 416 to a range
    /// request completes the download when its `Content-Range: bytes */N` says the kept file is whole, and
    /// otherwise throws the kept file away to start again; anything else leaves no file.
    package func conclude(_ response: HTTPURLResponse) throws(NALError) -> Conclusion {
        if (200..<300).contains(response.statusCode) {
            let (size, end) = state.withLock { ($0.writer?.size, $0.expectedEnd) }
            if let size, let end, size != end, !state.withLock({ $0.intoDevice }) {
                // What the file holds does not match what the server announced: nothing of it is kept.
                state.withLock { $0.brokeProtocol = true }
                discardKeptFile()
                throw .transport(
                    URLError(
                        .cannotParseResponse,
                        userInfo: [
                            NSLocalizedDescriptionKey:
                                "the body ended at \(size) bytes, not at the \(end) its Content-Range or Content-Length announced",
                            NSURLErrorFailingURLErrorKey: response.url as Any,
                        ]))
            }
            let file = try finish()
            // A resumed download reports the whole file it made, not the last part's 206.
            guard response.statusCode == 206, let url = response.url, let size else {
                return .downloaded(file, response)
            }
            return .downloaded(file, Self.wholeFile(response, url: url, size: size, keepingType: true))
        }
        let (requested, size, expectedTotal) = state.withLock {
            ($0.requestedOffset, $0.writer?.size, $0.expectedTotal)
        }
        guard response.statusCode == 416, requested > 0, let size else {
            abandon()
            return .notDownloaded
        }
        let range = response.value(forHTTPHeaderField: "Content-Range").flatMap(ContentRange.init)
        // Complete only when the 416 names our size as the whole, and that is the size the file was known to have.
        if let range, range.range == nil, range.total == size, size == requested, expectedTotal ?? size == size,
            let url = response.url
        {
            let file = try finish()
            return .downloaded(file, Self.wholeFile(response, url: url, size: size, keepingType: false))
        }
        discardKeptFile()
        return .restart
    }

    /// A 200 for the whole file of `size` bytes, made from the response that completed it (a 206 or a 416): its
    /// headers without the part's `Content-Range` and length (and, for a 416, its type, which describes an error
    /// body).
    private static func wholeFile(
        _ response: HTTPURLResponse, url: URL, size: Int64, keepingType: Bool
    ) -> HTTPURLResponse {
        var dropped: Set<String> = ["content-range", "content-length"]
        if !keepingType { dropped.insert("content-type") }
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            guard let name = name as? String, let value = value as? String, !dropped.contains(name.lowercased())
            else { continue }
            headers[name] = value
        }
        headers["Content-Length"] = String(size)
        return HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: headers) ?? response
    }

    /// Moves the partial file into place atomically, while it is still open and locked, then closes it (a device
    /// destination is just closed); returns the destination.
    package func finish() throws(NALError) -> URL {
        let (writer, destination, intoDevice) = state.withLock { ($0.writer, $0.destination, $0.intoDevice) }
        guard let writer, let destination else {
            let url = destination ?? spec.knownFile ?? spec.knownDirectory ?? URL(fileURLWithPath: ".")
            throw .file(FileFailure(role: .downloadDestination, problem: .other("nothing was written to it"), url: url))
        }
        if intoDevice {
            do {
                try writer.close()
            } catch {
                throw Self.asDestinationError(error, destination)
            }
            return destination
        }
        defer { writer.abandon() }
        do {
            try writer.publish()
        } catch {
            throw Self.asDestinationError(error, destination)
        }
        try DownloadFiles.move(writer.url, to: destination, replacing: spec.options.contains(.replaceExistingFile))
        if let recordDirectory { ResumeRecord.remove(for: recordKey, in: recordDirectory) }
        return destination
    }

    /// Ends a failed download: removes the partial file, or keeps it with a resume record when the destination is
    /// `.resumable` and the file can be resumed. The record is in place before the file's lock is released, and
    /// a file thrown away is gone before, so a call waiting for the lock finds things as they are.
    package func abandon() {
        let (writer, destination, validator, acceptsRanges, intoDevice, total) = state.withLock {
            ($0.writer, $0.destination, $0.validator, $0.acceptsRanges, $0.intoDevice, $0.expectedTotal)
        }
        guard let writer, let destination else { return }
        if intoDevice {
            writer.abandon()
            return
        }
        if let recordDirectory, acceptsRanges, let validator, writer.size > 0, (try? writer.flush()) != nil,
            let changed = writer.statusChangeTime
        {
            ResumeRecord(
                source: recordKey, validator: validator, destination: destination.path,
                partialName: writer.url.lastPathComponent, device: writer.identity.device,
                inode: writer.identity.inode, total: total, changed: changed
            ).write(in: recordDirectory)
            writer.abandon()
            return
        }
        if let recordDirectory { ResumeRecord.remove(for: recordKey, in: recordDirectory) }
        unlink(writer.url.path)
        writer.abandon()
    }

    /// Throws away a kept partial file and its record, so that the next exchange asks for the whole body.
    private func discardKeptFile() {
        let writer = state.withLock { state -> FileWriter? in
            defer {
                state.writer = nil
                state.requestedOffset = 0
                state.validator = nil
                state.acceptsRanges = false
                state.expectedTotal = nil
                state.expectedEnd = nil
                state.record = nil
            }
            return state.writer
        }
        if let recordDirectory { ResumeRecord.remove(for: recordKey, in: recordDirectory) }
        if let writer {
            unlink(writer.url.path)
            writer.abandon()
        }
    }

    // MARK: Preparing the destination

    private func openWriter(_ state: inout State, for response: HTTPURLResponse) throws(NALError) -> FileWriter {
        if let writer = state.writer { return writer }
        let destination = state.destination ?? spec.url(for: response)
        state.destination = destination
        let writer: FileWriter
        if try DownloadFiles.check(destination, options: spec.options) == .device {
            state.intoDevice = true
            writer = try FileWriter(url: destination, role: .downloadDestination, mode: .device)
        } else {
            writer = try destinationError(state) { () throws(NALError) -> FileWriter in
                try FileWriter(url: DownloadFiles.partialURL(for: destination), role: .temporaryFile, mode: .createNew)
            }
            _ = writer.tryLock()
        }
        state.writer = writer
        return writer
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
