import Dispatch
package import Foundation
import NALLogging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// POSIX file access for transfers, with every failure turned into a `FileFailure` that names the file and its role.
package enum FileAccess {
    /// Runs file work on a dispatch queue and waits for it without holding a thread of Swift's cooperative pool,
    /// which file I/O must never block.
    package static func offThread<Value: Sendable>(
        _ work: @escaping @Sendable () throws(NALError) -> Value
    ) async throws(NALError) -> Value {
        let result: Result<Value, NALError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                do throws(NALError) {
                    continuation.resume(returning: .success(try work()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// The problem an `errno` value stands for.
    static func problem(errno code: Int32, writing: Bool) -> FileFailure.Problem {
        switch code {
        case ENOENT, ENOTDIR: .missing
        case EISDIR: .isDirectory
        case EACCES, EPERM, EROFS: writing ? .notWritable : .notReadable
        case ENOSPC, EDQUOT: .diskFull
        case EEXIST: .alreadyExists
        default: .other(String(cString: strerror(code)))
        }
    }

    package static func failure(
        _ role: FileFailure.Role, _ url: URL, errno code: Int32, writing: Bool
    ) -> NALError {
        .file(
            FileFailure(
                role: role, problem: problem(errno: code, writing: writing), url: url,
                underlying: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)))
    }

    /// The size of a regular file that can be read; throws `missing`, `isDirectory`, `notReadable` or
    /// `notRegularFile` otherwise. The file is opened without blocking, so a FIFO cannot stall the caller, and a file
    /// that reports no size but has content (as `/proc` files do) is refused, since its length cannot be stated.
    package static func readableFileSize(_ url: URL, role: FileFailure.Role = .uploadSource) throws(NALError) -> Int64 {
        let descriptor = open(url.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(role, url, errno: errno, writing: false) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure(role, url, errno: errno, writing: false) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw .file(FileFailure(role: role, problem: .isDirectory, url: url))
        default: throw .file(FileFailure(role: role, problem: .notRegularFile, url: url))
        }
        if info.st_size == 0 {
            var probe: UInt8 = 0
            if read(descriptor, &probe, 1) > 0 {
                throw .file(FileFailure(role: role, problem: .notRegularFile, url: url))
            }
        }
        return Int64(info.st_size)
    }

    /// Reads the first `length` bytes of a file in chunks of `chunkSize` bytes and hands each to `body`; a file
    /// that is shorter than `length` fails, and bytes past it are not read.
    package static func readChunks(
        of url: URL, length: Int64, chunkSize: Int = 1 << 20, role: FileFailure.Role = .uploadSource,
        _ body: (Data) throws(NALError) -> Void
    ) throws(NALError) {
        let descriptor = open(url.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(role, url, errno: errno, writing: false) }
        defer { close(descriptor) }
        var buffer = Data(count: chunkSize)
        var remaining = length
        while remaining > 0 {
            let wanted = Int(min(Int64(chunkSize), remaining))
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, wanted) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(role, url, errno: errno, writing: false)
            }
            if count == 0 {
                let message = "shrank: it had \(length) bytes, and ended after \(length - remaining)"
                throw .file(FileFailure(role: role, problem: .other(message), url: url))
            }
            remaining -= Int64(count)
            try body(count == chunkSize ? buffer : buffer.prefix(count))
        }
    }
}
