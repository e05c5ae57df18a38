package import Foundation
import NALLogging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Appends bytes to a file through a buffer, so that 16 KiB network chunks become few large writes.
///
/// Used by one writer at a time; `discard` may come from another thread (a cancellation), hence the lock.
package final class FileWriter: Sendable {
    /// How the file is opened.
    package enum OpenMode: Sendable {
        /// A new file, which must not exist yet (not even as a symbolic link), readable by its owner only until
        /// `publish()`: a partial or temporary file nobody else can have prepared.
        case createNew
        /// A regular file this process's user owns, with one link, reopened to append (a resumed download's partial
        /// file); a symbolic link, someone else's file or a hard-linked one is refused.
        case appendToOwnFile
        /// A character device such as `/dev/null`, written as it is.
        case device
    }

    private struct State: Sendable {
        var descriptor: Int32
        var buffer: Data
        var written: Int64
    }

    /// Bytes gathered before a write.
    static let bufferSize = 256 * 1024

    package let url: URL
    /// The file's device and inode, which a resume record keeps to find it again.
    package let identity: (device: UInt64, inode: UInt64)
    private let role: FileFailure.Role
    private let state: Locked<State>

    /// Opens `url` for writing as `mode` says.
    package init(url: URL, role: FileFailure.Role, mode: OpenMode) throws(NALError) {
        let flags: Int32
        switch mode {
        case .createNew: flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC
        // O_NONBLOCK: opening a FIFO for writing would wait for a reader, forever; it fails at once instead (ENXIO),
        // or opens, and the check below refuses it. It is cleared again once the file is accepted.
        case .appendToOwnFile: flags = O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK
        case .device: flags = O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK
        }
        let descriptor = open(url.path, flags, 0o600)
        guard descriptor >= 0 else { throw FileAccess.failure(role, url, errno: errno, writing: true) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            closeDescriptor(descriptor)
            throw FileAccess.failure(role, url, errno: code, writing: true)
        }
        let kind = info.st_mode & S_IFMT
        let acceptable =
            switch mode {
            case .createNew: kind == S_IFREG
            case .appendToOwnFile: kind == S_IFREG && info.st_uid == geteuid() && info.st_nlink == 1
            case .device: kind == S_IFCHR
            }
        guard acceptable else {
            closeDescriptor(descriptor)
            throw .file(FileFailure(role: role, problem: .notRegularFile, url: url))
        }
        let status = fcntl(descriptor, F_GETFL)
        if status >= 0, status & O_NONBLOCK != 0 { _ = fcntl(descriptor, F_SETFL, status & ~O_NONBLOCK) }
        self.url = url
        self.role = role
        identity = (UInt64(info.st_dev), UInt64(info.st_ino))
        var buffer = Data()
        buffer.reserveCapacity(Self.bufferSize)
        state = Locked(State(descriptor: descriptor, buffer: buffer, written: Int64(info.st_size)))
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

    /// Takes the file's exclusive advisory lock (`flock`) without waiting: `false` when another writer holds it.
    /// Downloads lock their partial files for as long as they write them, so that two calls never resume the same
    /// file; closing releases the lock.
    package func tryLock() -> Bool {
        state.withLock { state in
            guard state.descriptor >= 0, flock(state.descriptor, LOCK_EX | LOCK_NB) == 0 else { return false }
            // The last holder may have written since this file was opened.
            var info = stat()
            if state.buffer.isEmpty, fstat(state.descriptor, &info) == 0 { state.written = Int64(info.st_size) }
            return true
        }
    }

    /// Writes what is buffered, keeping the file open.
    package func flush() throws(NALError) {
        try state.withLock { state throws(NALError) in
            guard state.descriptor >= 0 else { return }
            try flush(&state)
        }
    }

    /// When the file's inode last changed (`st_ctime`, to the nanosecond): what tells the file NAL wrote from
    /// another put in its place, which may get the same inode number. Nobody can set it back.
    package var statusChangeTime: [Int64]? {
        state.withLock { state -> [Int64]? in
            var info = stat()
            guard state.descriptor >= 0, fstat(state.descriptor, &info) == 0 else { return nil }
            #if canImport(Darwin)
                return [Int64(info.st_ctimespec.tv_sec), Int64(info.st_ctimespec.tv_nsec)]
            #else
                return [Int64(info.st_ctim.tv_sec), Int64(info.st_ctim.tv_nsec)]
            #endif
        }
    }

    /// The mode of a finished file: readable and writable as the process's umask allows now (`0666 & ~umask`), as a
    /// file `curl -o` or `open(2)` makes; 0600 when the umask cannot be read. Read from `/proc/self/status` at each
    /// use (a program may tighten its umask at any time), since `umask(2)` can only read the mask by changing it,
    /// which races with other threads creating files.
    static func publishedMode() -> mode_t {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
            let mask = mode_t(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8)
        else { return 0o600 }
        return 0o666 & ~mask
    }

    /// Writes what is buffered, flushes the file to disk and gives it `publishedMode()`, keeping it
    /// open (and locked) while it is renamed into place.
    package func publish() throws(NALError) {
        try state.withLock { state throws(NALError) in
            guard state.descriptor >= 0 else { return }
            try flush(&state)
            guard fchmod(state.descriptor, Self.publishedMode()) == 0, fsync(state.descriptor) == 0 else {
                throw FileAccess.failure(role, url, errno: errno, writing: true)
            }
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
