package import Foundation
import NALLogging

#if canImport(FoundationNetworking)
    package import FoundationNetworking
#endif

/// One download to its destination: the partial file beside it, resuming after an interruption, and the atomic
/// move into place. It decides where each response's body goes (`BodyRouting`): a success goes to the file, and
/// anything else (a 404, a redirect) stays in memory for the caller to see.
package final class DownloadJob: BodyRouting {
    private struct State: Sendable {
        /// The destination, once resolved.
        var destination: URL?
        var writer: FileWriter?
        /// Where the current exchange asked the body to start (`Range: bytes=N-`); 0 for the whole body.
        var requestedOffset: Int64 = 0
        /// The strong ETag or Last-Modified of the file being written, for `If-Range`.
        var validator: String?
        /// Whether the server serves byte ranges of this file.
        var acceptsRanges = false
    }

    /// Interruptions one call resumes from at most.
    static let maximumResumes = 20

    private let spec: DownloadDestination
    private let source: String
    private let state: Locked<State>

    /// A job for downloading `request` to `destination`. A `.resumable` destination is resolved now, from the
    /// request's URL, so that a partial file an earlier call kept can be found and continued.
    package init(_ destination: DownloadDestination, for request: URLRequest) {
        spec = destination
        source = request.url?.absoluteString ?? ""
        var initial = State()
        if destination.options.contains(.resumable), let url = request.url,
            let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: nil)
        {
            let target = destination.url(for: response)
            initial.destination = target
            if let record = ResumeRecord.read(beside: target), record.source == source,
                let writer = try? FileWriter(
                    url: Self.partialURL(for: target), role: .temporaryFile, truncating: false),
                writer.size > 0
            {
                initial.writer = writer
                initial.validator = record.validator
                initial.acceptsRanges = true
                initial.requestedOffset = writer.size
            }
        }
        state = Locked(initial)
    }

    /// `.name.nal-partial` beside the destination.
    package static func partialURL(for destination: URL) -> URL {
        destination.deletingLastPathComponent().appendingPathComponent(".\(destination.lastPathComponent).nal-partial")
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
            let encoded = response.value(forHTTPHeaderField: "Content-Encoding").map { $0.lowercased() != "identity" }
            state.acceptsRanges =
                encoded != true
                && (response.statusCode == 206
                    || response.value(forHTTPHeaderField: "Accept-Ranges")?.lowercased().contains("bytes") == true)
            if let validator = Self.validator(of: response) { state.validator = validator }
            if response.statusCode == 206 {
                guard state.requestedOffset > 0,
                    let range = ContentRange(response.value(forHTTPHeaderField: "Content-Range") ?? ""),
                    range.start == state.requestedOffset, writer.size == state.requestedOffset
                else {
                    throw .transport(
                        URLError(
                            .cannotParseResponse,
                            userInfo: [
                                NSLocalizedDescriptionKey:
                                    "the server sent a range (\(response.value(forHTTPHeaderField: "Content-Range") ?? "no Content-Range")) "
                                    + "other than the one asked for (bytes=\(state.requestedOffset)-)",
                                NSURLErrorFailingURLErrorKey: response.url as Any,
                            ]))
                }
                return .file(alreadyReceived: range.start, total: range.total)
            }
            // The whole body: the server ignored the range, or the file changed since. Start again.
            if writer.size > 0 { try destinationError(state) { () throws(NALError) in try writer.truncate() } }
            state.requestedOffset = 0
            let length = response.expectedContentLength
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
    /// were written, the server serves ranges, and the file has a validator to check it has not changed.
    package func prepareResume(after error: NALError) -> Bool {
        switch error {
        case .transport: break
        case .timedOut(let failure) where failure.limit == .idle: break
        default: return false
        }
        return state.withLock { state in
            guard let writer = state.writer, state.acceptsRanges, state.validator != nil else { return false }
            let size = writer.size
            guard size > 0 else { return false }
            state.requestedOffset = size
            return true
        }
    }

    /// Closes the partial file and moves it into place atomically; returns the destination.
    package func finish() throws(NALError) -> URL {
        let (writer, destination) = state.withLock { ($0.writer, $0.destination) }
        guard let writer, let destination else {
            throw .file(FileFailure(role: .downloadDestination, problem: .missing, url: spec.placeholder))
        }
        do {
            try writer.close()
        } catch {
            throw Self.asDestinationError(error, destination)
        }
        try Self.move(writer.url, to: destination, replacing: spec.options.contains(.replaceExistingFile))
        ResumeRecord.remove(beside: destination)
        return destination
    }

    /// Ends a failed download: removes the partial file, or keeps it with a resume record when the destination is
    /// `.resumable` and the file can be resumed.
    package func abandon() {
        let (writer, destination, validator, acceptsRanges) = state.withLock {
            ($0.writer, $0.destination, $0.validator, $0.acceptsRanges)
        }
        guard let writer, let destination else { return }
        if spec.options.contains(.resumable), acceptsRanges, let validator, (try? writer.close()) != nil,
            writer.size > 0
        {
            ResumeRecord(source: source, validator: validator).write(beside: destination)
            return
        }
        writer.abandon()
        try? FileManager.default.removeItem(at: writer.url)
        ResumeRecord.remove(beside: destination)
    }

    // MARK: Preparing the destination

    private func openWriter(_ state: inout State, for response: HTTPURLResponse) throws(NALError) -> FileWriter {
        if let writer = state.writer { return writer }
        let destination = state.destination ?? spec.url(for: response)
        state.destination = destination
        try Self.check(destination, options: spec.options)
        let writer = try destinationError(state) { () throws(NALError) -> FileWriter in
            try FileWriter(url: Self.partialURL(for: destination), role: .temporaryFile, truncating: true)
        }
        state.writer = writer
        return writer
    }

    /// Refuses a destination that is a directory, or a file that may not be replaced; creates parent directories.
    private static func check(_ destination: URL, options: DownloadDestination.Options) throws(NALError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: destination.path, isDirectory: &isDirectory) {
            if isDirectory.boolValue {
                throw .file(FileFailure(role: .downloadDestination, problem: .isDirectory, url: destination))
            }
            if !options.contains(.replaceExistingFile) {
                throw .file(FileFailure(role: .downloadDestination, problem: .alreadyExists, url: destination))
            }
        }
        let directory = destination.deletingLastPathComponent()
        guard !FileManager.default.fileExists(atPath: directory.path) else { return }
        guard options.contains(.createIntermediateDirectories) else {
            throw .file(FileFailure(role: .downloadDestination, problem: .missing, url: destination))
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .file(
                FileFailure(role: .downloadDestination, problem: .notWritable, url: destination, underlying: error))
        }
    }

    /// Moves the finished file into place: `rename` replaces atomically; without replacing, `link` refuses an
    /// existing file atomically.
    private static func move(_ partial: URL, to destination: URL, replacing: Bool) throws(NALError) {
        if replacing {
            guard rename(partial.path, destination.path) == 0 else {
                let code = errno
                try? FileManager.default.removeItem(at: partial)
                throw FileAccess.failure(.downloadDestination, destination, errno: code, writing: true)
            }
            return
        }
        let linked = link(partial.path, destination.path)
        let code = errno
        _ = unlink(partial.path)
        guard linked == 0 else {
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

extension DownloadDestination {
    /// A URL for messages when no response ever resolved the destination.
    fileprivate var placeholder: URL { URL(fileURLWithPath: "/") }
}

/// `Content-Range: bytes 100-199/1000` (RFC 9110, 14.4); the total may be `*`.
struct ContentRange: Equatable {
    let start: Int64
    let end: Int64
    let total: Int64?

    init?(_ header: String) {
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst(6).split(separator: "/", maxSplits: 1)
        guard spec.count == 2 else { return nil }
        let bounds = spec[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let start = Int64(bounds[0]), let end = Int64(bounds[1]), start <= end else {
            return nil
        }
        self.start = start
        self.end = end
        total = spec[1] == "*" ? nil : Int64(spec[1])
        if spec[1] != "*", total == nil { return nil }
    }
}

/// What a kept partial file needs to be resumed: the URL it came from and its validator, in a small JSON file
/// beside it.
struct ResumeRecord: Codable {
    let source: String
    let validator: String

    static func url(beside destination: URL) -> URL {
        DownloadJob.partialURL(for: destination).appendingPathExtension("json")
    }

    static func read(beside destination: URL) -> ResumeRecord? {
        guard let data = try? Data(contentsOf: url(beside: destination)) else { return nil }
        return try? JSONDecoder().decode(ResumeRecord.self, from: data)
    }

    func write(beside destination: URL) {
        guard let data = try? JSONEncoder().encode(self) else { return }
        try? data.write(to: Self.url(beside: destination), options: .atomic)
    }

    static func remove(beside destination: URL) {
        try? FileManager.default.removeItem(at: url(beside: destination))
    }
}
