package import Foundation
package import NALLogging

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

/// A request body of a known length, read piece by piece as URLSession sends it: bytes in memory and ranges of
/// files whose sizes were taken when the request was prepared.
///
/// It sends exactly the declared length and nothing more: a file that grew since is cut at its declared size, and
/// one that shrank fails the transfer at once (`failure` says which file and by how much) instead of stalling
/// until a timeout. URLSession's own file uploads read a file to its end, whatever `Content-Length` said, so a
/// file that grows during the upload would put extra bytes on a keep-alive connection (Linux fact 20). Reading
/// happens on URLSession's thread, never on a Swift task's.
package final class UploadBodyStream: InputStream {
    // Foundation's streams are not Sendable; every stored property is guarded by `lock`, and `failures` is what other
    // threads read.

    /// One piece of the body.
    package enum Segment: Sendable {
        /// Bytes in memory.
        case data(Data)
        /// The first `length` bytes of a file.
        case file(URL, length: Int64)

        var length: Int64 {
            switch self {
            case .data(let data): Int64(data.count)
            case .file(_, let length): length
            }
        }

        /// The sum of the segments' lengths; refused, naming the largest file, when it would not fit in an `Int64`
        /// (sparse files can claim any size).
        package static func totalLength(of segments: [Segment]) throws(NALError) -> Int64 {
            var total: Int64 = 0
            for segment in segments {
                let (sum, overflow) = total.addingReportingOverflow(segment.length)
                guard !overflow else {
                    let largest = segments.compactMap { segment -> (URL, Int64)? in
                        if case .file(let url, let length) = segment { (url, length) } else { nil }
                    }.max { $0.1 < $1.1 }
                    throw .file(
                        FileFailure(
                            role: .uploadSource, problem: .other("the upload's parts add up to more than 2^63 bytes"),
                            url: largest?.0 ?? URL(fileURLWithPath: "/")))
                }
                total = sum
            }
            return total
        }
    }

    private let lock = NSLock()
    private let segments: [Segment]
    private var index = 0
    /// Bytes of the current segment already read.
    private var offset: Int64 = 0
    private var descriptor: Int32 = -1
    private var status: Stream.Status = .notOpen

    /// Why the transfer stopped reading, when a file could not be read or shrank: shared with the transport, which
    /// reports it instead of URLSession's vaguer error.
    package let failures: Locked<NALError?>

    /// The body's length: the sum of its segments.
    package let length: Int64

    /// A stream of `segments`; refused when their lengths add up to more than an `Int64` holds. A stream that sends
    /// a body again (on a new connection) shares the first one's `failures`.
    package init(_ segments: [Segment], failures: Locked<NALError?> = Locked(nil)) throws(NALError) {
        self.segments = segments
        self.failures = failures
        length = try Segment.totalLength(of: segments)
        super.init(data: Data())
    }

    deinit {
        if descriptor >= 0 { systemClose(descriptor) }
    }

    /// `request` sending this stream, with its length in `Content-Length`. On Linux, FoundationNetworking frames
    /// every stream as chunked and libcurl would send both headers; a `Transfer-Encoding` of a single space turns
    /// libcurl's header off, so that `Content-Length` alone frames the body (Linux fact 23).
    package func attached(to request: URLRequest) -> URLRequest {
        var streamed = request
        streamed.httpBody = nil
        streamed.httpBodyStream = self
        streamed.setValue(String(length), forHTTPHeaderField: "Content-Length")
        #if canImport(FoundationNetworking)
            streamed.setValue(" ", forHTTPHeaderField: "Transfer-Encoding")
        #endif
        // FoundationNetworking would call an untyped streamed POST a form.
        if streamed.value(forHTTPHeaderField: "Content-Type") == nil {
            streamed.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        }
        return streamed
    }

    /// Why the transfer stopped reading, when a file could not be read or shrank.
    package var failure: NALError? { failures.withLock { $0 } }

    override package func open() {
        lock.lock()
        defer { lock.unlock() }
        if status == .notOpen { status = .open }
    }

    override package func close() {
        lock.lock()
        defer { lock.unlock() }
        closeFile()
        status = .closed
    }

    override package var streamStatus: Stream.Status {
        lock.lock()
        defer { lock.unlock() }
        return status
    }

    // FoundationNetworking's own streams trap on `streamError` (Linux fact 9); this one answers.
    override package var streamError: (any Error)? { failure }

    override package var hasBytesAvailable: Bool {
        lock.lock()
        defer { lock.unlock() }
        return status == .open && index < segments.count
    }

    override package func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        guard status == .open, maxLength > 0 else { return status == .error ? -1 : 0 }
        while index < segments.count {
            let segment = segments[index]
            let remaining = segment.length - offset
            guard remaining > 0 else {
                closeFile()
                index += 1
                offset = 0
                continue
            }
            let count = Int(min(Int64(maxLength), remaining))
            let read: Int
            switch segment {
            case .data(let data):
                let start = data.startIndex + Int(offset)
                data.copyBytes(to: buffer, from: start..<(start + count))
                read = count
            case .file(let url, let length):
                read = readFile(url, declared: length, into: buffer, count: count)
                if read < 0 { return -1 }
            }
            offset += Int64(read)
            return read
        }
        status = .atEnd
        return 0
    }

    override package func getBuffer(
        _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length: UnsafeMutablePointer<Int>
    ) -> Bool {
        false
    }

    /// Reads up to `count` bytes of the current file segment; -1 after recording a failure.
    private func readFile(_ url: URL, declared: Int64, into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        if descriptor < 0 {
            descriptor = systemOpen(url.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
            guard descriptor >= 0 else {
                return fail(FileAccess.failure(.uploadSource, url, errno: errno, writing: false))
            }
        }
        while true {
            let read = systemRead(descriptor, buffer, count)
            if read < 0 && errno == EINTR { continue }
            if read < 0 { return fail(FileAccess.failure(.uploadSource, url, errno: errno, writing: false)) }
            if read == 0 {
                let message = "shrank during the upload: it had \(declared) bytes, and ended after \(offset)"
                return fail(.file(FileFailure(role: .uploadSource, problem: .other(message), url: url)))
            }
            return read
        }
    }

    private func fail(_ error: NALError) -> Int {
        failures.withLock { $0 = error }
        status = .error
        closeFile()
        return -1
    }

    private func closeFile() {
        if descriptor >= 0 {
            systemClose(descriptor)
            descriptor = -1
        }
    }
}

// File-level, where `open`, `read` and `close` are the system's and not the stream's methods.
private func systemOpen(_ path: String, _ flags: Int32) -> Int32 { open(path, flags) }
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutablePointer<UInt8>, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
private func systemClose(_ descriptor: Int32) { _ = close(descriptor) }
