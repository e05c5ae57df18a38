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

    /// The size of a regular file that can be read; throws `missing`, `isDirectory` or `notReadable` otherwise.
    package static func readableFileSize(_ url: URL, role: FileFailure.Role = .uploadSource) throws(NALError) -> Int64 {
        var info = stat()
        guard stat(url.path, &info) == 0 else { throw failure(role, url, errno: errno, writing: false) }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw .file(FileFailure(role: role, problem: .isDirectory, url: url))
        }
        let descriptor = open(url.path, O_RDONLY)
        guard descriptor >= 0 else { throw failure(role, url, errno: errno, writing: false) }
        close(descriptor)
        return Int64(info.st_size)
    }

    /// Reads a file in chunks of `chunkSize` bytes and hands each to `body`.
    package static func readChunks(
        of url: URL, chunkSize: Int = 1 << 20, role: FileFailure.Role = .uploadSource,
        _ body: (Data) throws(NALError) -> Void
    ) throws(NALError) {
        let descriptor = open(url.path, O_RDONLY)
        guard descriptor >= 0 else { throw failure(role, url, errno: errno, writing: false) }
        defer { close(descriptor) }
        var buffer = Data(count: chunkSize)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, chunkSize) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(role, url, errno: errno, writing: false)
            }
            if count == 0 { return }
            try body(count == chunkSize ? buffer : buffer.prefix(count))
        }
    }
}

/// Appends bytes to a file through a buffer, so that 16 KiB network chunks become few large writes.
///
/// Used by one writer at a time; `discard` may come from another thread (a cancellation), hence the lock.
package final class FileWriter: Sendable {
    private struct State: Sendable {
        var descriptor: Int32
        var buffer: Data
        var written: Int64
    }

    /// Bytes gathered before a write.
    static let bufferSize = 256 * 1024

    package let url: URL
    private let role: FileFailure.Role
    private let state: Locked<State>

    /// Opens `url` for writing, created with mode 0644; `truncating` empties it, otherwise writes append.
    package init(url: URL, role: FileFailure.Role, truncating: Bool) throws(NALError) {
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (truncating ? O_TRUNC : O_APPEND)
        let descriptor = open(url.path, flags, 0o644)
        guard descriptor >= 0 else { throw FileAccess.failure(role, url, errno: errno, writing: true) }
        var info = stat()
        let size = fstat(descriptor, &info) == 0 ? Int64(info.st_size) : 0
        self.url = url
        self.role = role
        var buffer = Data()
        buffer.reserveCapacity(Self.bufferSize)
        state = Locked(State(descriptor: descriptor, buffer: buffer, written: size))
    }

    deinit {
        state.withLock { state in
            if state.descriptor >= 0 { closeDescriptor(state.descriptor) }
        }
    }

    /// The file's size, counting bytes still in the buffer.
    package var size: Int64 {
        state.withLock { $0.written + Int64($0.buffer.count) }
    }

    /// Appends `data`; writes when the buffer is full.
    package func append(_ data: Data) throws(NALError) {
        try state.withLock { state throws(NALError) in
            guard state.descriptor >= 0 else { return }
            if state.buffer.count + data.count > Self.bufferSize {
                try flush(&state)
                if data.count >= Self.bufferSize {
                    try write(data, &state)
                    return
                }
            }
            state.buffer.append(data)
        }
    }

    /// Empties the file, to start again from byte 0.
    package func truncate() throws(NALError) {
        try state.withLock { state throws(NALError) in
            state.buffer.removeAll(keepingCapacity: true)
            guard ftruncate(state.descriptor, 0) == 0, lseek(state.descriptor, 0, SEEK_SET) == 0 else {
                throw FileAccess.failure(role, url, errno: errno, writing: true)
            }
            state.written = 0
        }
    }

    /// Writes what is buffered and closes the file.
    package func close() throws(NALError) {
        try state.withLock { state throws(NALError) in
            guard state.descriptor >= 0 else { return }
            defer {
                closeDescriptor(state.descriptor)
                state.descriptor = -1
            }
            try flush(&state)
        }
    }

    /// Closes the file without writing what is buffered.
    package func abandon() {
        state.withLock { state in
            guard state.descriptor >= 0 else { return }
            closeDescriptor(state.descriptor)
            state.descriptor = -1
            state.buffer = Data()
        }
    }

    private func flush(_ state: inout State) throws(NALError) {
        guard !state.buffer.isEmpty else { return }
        try write(state.buffer, &state)
        state.buffer.removeAll(keepingCapacity: true)
    }

    private func write(_ data: Data, _ state: inout State) throws(NALError) {
        let descriptor = state.descriptor
        let failure: Int32? = data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let count = writeDescriptor(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += count
            }
            return nil
        }
        if let failure { throw FileAccess.failure(role, url, errno: failure, writing: true) }
        state.written += Int64(data.count)
    }
}

// File-level, where `close` and `write` are the system's and not `FileWriter`'s methods.
private func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}

private func writeDescriptor(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
