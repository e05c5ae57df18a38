import Foundation
import NALCore
import NALSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Plays a `StubResponse`'s body: waits out its delay, then hands over the body in chunks at its speed, and ends or
/// fails as the stub says. `StubTransport` and `StubServer` both play stubs through it, so a stub behaves the same
/// through either.
struct StubPlayback: Sendable {
    enum Failure: Error {
        /// The stub is a network error, or was cut short.
        case network(URLError.Code)
        /// The stub fails with an error of the test's own.
        case custom(any Error)
        /// The body's file could not be read.
        case file(URL, underlying: any Error)
        /// The task playing it was cancelled.
        case cancelled
        /// Whoever took the body refused a chunk (a full disk, an in-memory limit).
        case rejected(NALError)

        /// The error a URLSession client gets: a `URLError` with the failing URL, or the stub's own error.
        func sessionError(url: URL?) -> any Error {
            var userInfo: [String: Any] = [:]
            if let url { userInfo[NSURLErrorFailingURLErrorKey] = url }
            switch self {
            case .network(let code): return URLError(code, userInfo: userInfo)
            case .custom(let error): return error
            case .cancelled: return URLError(.cancelled, userInfo: userInfo)
            case .rejected(let error):
                userInfo[NSUnderlyingErrorKey] = error
                return URLError(.unknown, userInfo: userInfo)
            case .file(let file, let underlying):
                userInfo[NSUnderlyingErrorKey] = underlying
                userInfo[NSLocalizedDescriptionKey] = "the stub's body file \(file.path) cannot be read"
                return URLError(.cannotOpenFile, userInfo: userInfo)
            }
        }

        /// The error NAL's `StubTransport` throws: as `URLSessionTransport` would report the same failure, and a
        /// stubbed `NALError` as it is.
        func nalError(url: URL?) -> NALError {
            switch self {
            case .cancelled: return .cancelled
            case .rejected(let error): return error
            case .network(.timedOut): return .timedOut(TimeoutFailure(limit: .idle, seconds: 0, url: url))
            case .custom(let error as NALError): return error
            default: return Self.asNALError(sessionError(url: url), url: url)
            }
        }

        /// Any error as `NALError.transport`: a `URLError` as it is, another error as a `URLError(.unknown)` whose
        /// underlying error it is.
        static func asNALError(_ error: any Error, url: URL?) -> NALError {
            if let error = error as? NALError { return error }
            if let urlError = error as? URLError { return .transport(urlError) }
            var userInfo: [String: Any] = [NSUnderlyingErrorKey: error, NSLocalizedDescriptionKey: "\(error)"]
            if let url { userInfo[NSURLErrorFailingURLErrorKey] = url }
            return .transport(URLError(.unknown, userInfo: userInfo))
        }
    }

    /// Bytes per chunk when the body is not throttled.
    static let chunkSize = 64 * 1024
    /// Bytes per chunk through a URLSession: libcurl's size, which the transport's backpressure is measured in (a
    /// queue of 512 callbacks holds 8 MiB of them).
    static let sessionChunkSize = 16 * 1024

    let response: StubResponse

    /// The body's length, or `nil` when it cannot be known (an unreadable file).
    var bodyLength: Int? {
        switch response.body {
        case .data(let data): return data.count
        case .file(let url):
            let size = try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber
            return size?.intValue
        case .chunks: return nil
        }
    }

    /// Whether the body is an event stream, which plays event by event whatever its source (a HAR export, a
    /// `.tail` file, a cassette).
    var isEventStream: Bool {
        guard let type = response.headers.headerValue("Content-Type") else { return false }
        return type.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces).lowercased() == "text/event-stream"
    }

    /// The headers to send: the stub's, with `Content-Length` from the body unless the stub set one, or a
    /// truncation point makes it a lie on purpose.
    var headers: [String: String] {
        var headers = response.headers
        if headers.headerKey("Content-Length") == nil,
            let length = bodyLength
        {
            headers["Content-Length"] = String(length)
        }
        return headers
    }

    /// Waits out the delay; throws `.network` or `.custom` when the stub is an error.
    func waitForStart() async throws(Failure) {
        if let delay = response.delay {
            // `delay` is a public var and may hold anything; `Task.sleep` traps on centuries.
            do { try await Task.sleep(for: SettingClamp.sleepable(delay)) } catch { throw .cancelled }
        }
        if let error = response.error { throw .custom(error) }
        if let failure = response.failure { throw .network(failure) }
    }

    /// Hands the body to `deliver` in chunks, at the stub's speed, and throws `.network(.networkConnectionLost)`
    /// after the truncation point.
    func playBody(
        chunkSize: Int = StubPlayback.chunkSize, pacing: (() async -> Void)? = nil,
        _ deliver: (Data) throws(NALError) -> Void
    ) async throws(Failure) {
        let chunk = response.bytesPerSecond.map { max(1, min(chunkSize, $0 / 10)) } ?? chunkSize
        var remaining = response.truncationPoint ?? Int.max
        var source = try ChunkSource(response.body, splittingEvents: isEventStream)
        defer { source.close() }
        var pieceEnded = false
        while remaining > 0 {
            guard let (next, endsPiece) = try source.next(min(chunk, remaining)) else { break }
            if Task.isCancelled { throw .cancelled }
            if pieceEnded, let interval = response.chunkInterval, interval > .zero {
                do { try await Task.sleep(for: SettingClamp.sleepable(interval)) } catch { throw .cancelled }
            }
            pieceEnded = endsPiece
            if let bytesPerSecond = response.bytesPerSecond {
                let pause = Duration.nanoseconds(Int64(next.count) * 1_000_000_000 / Int64(bytesPerSecond))
                do { try await Task.sleep(for: pause) } catch { throw .cancelled }
            }
            do { try deliver(next) } catch { throw .rejected(error) }
            await pacing?()
            remaining -= next.count
        }
        if let cut = response.truncationPoint, remaining <= 0, (bodyLength ?? Int.max) > cut {
            throw .network(.networkConnectionLost)
        }
    }

    /// Hands the body's first piece to `deliver` (a stream's first chunk, an event stream's first event).
    func playFirstPiece(_ deliver: (Data) -> Void) async throws(Failure) {
        var source = try ChunkSource(response.body, splittingEvents: isEventStream)
        defer { source.close() }
        while let (next, endsPiece) = try source.next(Self.chunkSize) {
            deliver(next)
            if endsPiece { return }
        }
    }

    /// The whole body at once, for clients that can only take it in one piece.
    func wholeBody() throws(Failure) -> Data {
        switch response.body {
        case .data(let data): return data
        case .file(let url):
            do { return try Data(contentsOf: url) } catch { throw .file(url, underlying: error) }
        case .chunks(let chunks):
            return chunks.reduce(into: Data()) { $0.append($1) }
        }
    }

    /// Reads a body in chunks: slices of bytes in memory, or reads from a file. Bytes in memory may be made of
    /// pieces (a stream's chunks, an event stream's events) that are never delivered together: each read ends at
    /// the end of a piece at the latest, and says whether it did.
    private struct ChunkSource {
        private var data: Data?
        private var offset = 0
        /// Where each piece ends, in ascending order; the next read stops at the first one past `offset`.
        private var pieceEnds: [Int] = []
        private var nextPiece = 0
        private var handle: FileHandle?
        private let url: URL?

        init(_ body: StubResponse.Body, splittingEvents: Bool) throws(Failure) {
            switch body {
            case .data(let bytes):
                data = bytes
                url = nil
                if splittingEvents { pieceEnds = Self.eventEnds(in: bytes) }
            case .chunks(let chunks):
                data = chunks.reduce(into: Data()) { $0.append($1) }
                url = nil
                var end = 0
                for chunk in chunks where !chunk.isEmpty {
                    end += chunk.count
                    pieceEnds.append(end)
                }
            case .file(let file):
                url = file
                do { handle = try FileHandle(forReadingFrom: file) } catch { throw .file(file, underlying: error) }
            }
        }

        mutating func next(_ count: Int) throws(Failure) -> (Data, endsPiece: Bool)? {
            if let data {
                guard offset < data.count else { return nil }
                while nextPiece < pieceEnds.count, pieceEnds[nextPiece] <= offset { nextPiece += 1 }
                let pieceEnd = nextPiece < pieceEnds.count ? pieceEnds[nextPiece] : data.count
                let end = min(pieceEnd, offset + count)
                defer { offset = end }
                return (data.subdata(in: (data.startIndex + offset)..<(data.startIndex + end)), end == pieceEnd)
            }
            guard let handle, let url else { return nil }
            do {
                let bytes = try handle.read(upToCount: count)
                return bytes.flatMap { $0.isEmpty ? nil : ($0, false) }
            } catch {
                throw .file(url, underlying: error)
            }
        }

        /// The offsets just past each event of an event stream: after each empty line (LF LF, CRLF CRLF, CR CR).
        static func eventEnds(in data: Data) -> [Int] {
            var ends: [Int] = []
            let bytes = [UInt8](data)
            var index = 0
            var lineWasEmpty = true
            var lineStart = 0
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                guard byte == 0x0A || byte == 0x0D else { continue }
                if byte == 0x0D, index < bytes.count, bytes[index] == 0x0A { index += 1 }
                let empty = index - lineStart <= 2 && (lineStart == index - 1 || bytes[lineStart] == 0x0D)
                if empty, !lineWasEmpty { ends.append(index) }
                lineWasEmpty = empty
                lineStart = index
            }
            return ends
        }

        func close() {
            try? handle?.close()
        }
    }
}
