import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes whole lines to a file descriptor under a lock, so lines from concurrent tasks never interleave.
final class FileDescriptorWriter: Sendable {
    private let fileDescriptor: Int32
    /// Guards no value, only the order of whole lines; an NSLock so ThreadSanitizer sees it (see `Locked`).
    private let lock = NSLock()

    init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    func writeLine(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        lock.withLock {
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = write(fileDescriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                    if written > 0 {
                        offset += written
                    } else if written < 0 && errno == EINTR {
                        continue
                    } else {
                        return  // A log line is not worth crashing or spinning for.
                    }
                }
            }
        }
    }
}
