package import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a whole regular file given by a user (a fixture, a baseline) into memory, up to a stated size: a FIFO, a
/// device or a file larger than the reader can hold is refused by name before it is read, not waited on or read
/// until memory runs out.
package enum BoundedFile {
    /// Why a file could not be read, as a fragment that follows its path ("is a FIFO (named pipe), not a regular
    /// file").
    package struct Failure: Error, Sendable, Equatable {
        package let problem: String
    }

    /// The bytes of the regular file at `path`, at most `limit` of them.
    /// - Throws: when `path` names no regular file, cannot be opened or read, or holds more than `limit` bytes, or
    ///   grows past it while it is read.
    package static func contents(ofPath path: String, atMost limit: Int) throws(Failure) -> Data {
        // Opened without blocking, and checked through the descriptor: a FIFO would block `open` itself, and a path
        // checked before it is opened may name another file by then.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw Failure(problem: FileKind.missing.problem ?? "") }
            throw Failure(problem: "cannot be read: \(String(cString: strerror(code)))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw Failure(problem: "cannot be read: \(String(cString: strerror(errno)))")
        }
        if let problem = FileKind(mode: info.st_mode).problem { throw Failure(problem: problem) }
        guard Int64(info.st_size) <= Int64(limit) else { throw tooLarge(Int64(info.st_size), limit: limit) }
        // Read into a buffer of the size `fstat` gave, in one allocation; a file that grows meanwhile is read on, up
        // to the limit, and one that shrinks ends where it ends.
        var data = Data(count: Int(info.st_size))
        var filled = 0
        while true {
            if filled == data.count {
                guard data.count < limit else {
                    // At the limit: one more byte means too large.
                    var probe: UInt8 = 0
                    let extra = Self.readRetrying(descriptor, &probe, 1)
                    if extra < 0 { throw Failure(problem: "cannot be read: \(String(cString: strerror(errno)))") }
                    if extra > 0 { throw tooLarge(Int64(limit) + 1, limit: limit) }
                    return data
                }
                data.count = min(limit, max(data.count * 2, data.count + (64 << 10)))
            }
            let count = data.withUnsafeMutableBytes { buffer in
                Self.readRetrying(descriptor, buffer.baseAddress.map { $0 + filled }, buffer.count - filled)
            }
            if count < 0 { throw Failure(problem: "cannot be read: \(String(cString: strerror(errno)))") }
            if count == 0 {
                data.count = filled
                return data
            }
            filled += count
        }
    }

    /// `read(2)`, again after an interruption.
    private static func readRetrying(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        while true {
            let result = read(descriptor, buffer, count)
            if result < 0, errno == EINTR { continue }
            return result
        }
    }

    private static func tooLarge(_ size: Int64, limit: Int) -> Failure {
        Failure(problem: "holds \(size) bytes or more, past the \(describe(bytes: limit)) such a file may have")
    }

    /// `256 MiB`, `16 KiB`, `100 bytes`.
    package static func describe(bytes: Int) -> String {
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }
}
