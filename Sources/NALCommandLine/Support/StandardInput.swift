import Foundation
import NALLogging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard input as a request body (`--data @-`): read to its end before the request starts, as `curl --data-binary
/// @-` reads it, into a temporary file rather than memory, so that the upload has a length to declare and memory
/// stays flat. The copy is removed at exit, and when the run is interrupted (SIGINT, SIGTERM).
enum StandardInput {
    /// Copies standard input to a new temporary file and returns it, reading on a thread of its own: a Swift task
    /// must not block on input that may never come.
    static func spool() async throws(UsageError) -> URL {
        let result: Result<URL, UsageError> = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                do throws(UsageError) {
                    continuation.resume(returning: .success(try copy()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    private static func copy() throws(UsageError) -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nal-stdin-\(UUID().uuidString)")
        let output = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard output >= 0 else {
            throw UsageError(
                message: "cannot spool standard input to \(file.path): \(String(cString: strerror(errno)))")
        }
        defer { close(output) }
        spooled.withLock { $0.append(file) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = read(0, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw UsageError(message: "cannot read standard input: \(String(cString: strerror(errno)))")
            }
            if count == 0 { return file }
            var written = 0
            while written < count {
                let result = buffer.withUnsafeBytes {
                    write(output, $0.baseAddress.map { $0 + written }, count - written)
                }
                guard result > 0 else {
                    throw UsageError(message: "cannot spool standard input: \(String(cString: strerror(errno)))")
                }
                written += result
            }
        }
    }

    /// Removes the spooled copies.
    static func removeSpooled() {
        for file in spooled.withLock({ $0 }) { unlink(file.path) }
    }

    private static let spooled = Locked<[URL]>([])
}
