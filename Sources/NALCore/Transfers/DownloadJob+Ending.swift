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

extension DownloadJob {
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
                throw Self.protocolBroken(
                    "the body ended at \(size) bytes, not at the \(end) its Content-Range or Content-Length announced",
                    url: response.url)
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
    static func wholeFile(
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
    func discardKeptFile() {
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
}
