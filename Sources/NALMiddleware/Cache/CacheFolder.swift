import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The POSIX file work of a cache folder. Every file is opened without following links and must be a regular file
/// of this user's; what is written is new (`O_EXCL`) and private (0600).
enum CacheFolder {
    /// A file in the folder: its name, size and last change.
    struct Item {
        let name: String
        let bytes: Int
        let modified: Date
    }

    /// Whether a folder can hold a cache, and why not.
    enum Readiness {
        case ready
        /// What is wrong, as the end of a sentence that starts with the folder's path.
        case unusable(String)
    }

    /// Creates `folder` (and its parents) private to the user when it is missing. An existing one must be a folder
    /// (not a link to one) of the user's that nobody else may write to: another user could otherwise take its lock
    /// or swap its files.
    static func prepare(_ folder: URL) -> Readiness {
        var info = stat()
        if lstat(folder.path, &info) != 0 {
            guard errno == ENOENT else { return .unusable("cannot be read") }
            do {
                try FileManager.default.createDirectory(
                    at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                return .unusable("cannot be created")
            }
            guard lstat(folder.path, &info) == 0 else { return .unusable("cannot be read") }
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { return .unusable("is not a folder") }
        guard info.st_uid == geteuid() else { return .unusable("belongs to another user") }
        guard info.st_mode & (S_IWGRP | S_IWOTH) == 0 else { return .unusable("may be written by other users") }
        return .ready
    }

    /// Whether `folder` is still there.
    static func exists(_ folder: URL) -> Bool {
        var info = stat()
        return lstat(folder.path, &info) == 0
    }

    /// The regular files of the user's in `folder`.
    static func items(in folder: URL) -> [Item] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
        return names.compactMap { name in
            var info = stat()
            guard lstat(folder.appendingPathComponent(name).path, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
                info.st_uid == geteuid()
            else { return nil }
            #if canImport(Darwin)
                let time = info.st_mtimespec
            #else
                let time = info.st_mtim
            #endif
            let modified = Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1e9)
            return Item(name: name, bytes: Int(info.st_size), modified: modified)
        }
    }

    /// Writes `bytes` to a new file at `url`; `false` (and no file) when it cannot be written whole.
    static func writeNew(_ bytes: [UInt8], to url: URL) -> Bool {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        var written = 0
        bytes.withUnsafeBytes { buffer in
            while written < buffer.count {
                let count = write(descriptor, buffer.baseAddress.map { $0 + written }, buffer.count - written)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return }
                written += count
            }
        }
        let closed = close(descriptor) == 0
        guard written == bytes.count, closed else {
            unlink(url.path)
            return false
        }
        return true
    }

    /// The bytes of the regular file at `url` when it is the user's and at most `limit` bytes long.
    static func contents(of url: URL, atMost limit: Int) -> [UInt8]? {
        let descriptor = open(url.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(),
            info.st_size <= limit
        else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var filled = 0
        let complete = bytes.withUnsafeMutableBytes { buffer -> Bool in
            while filled < buffer.count {
                let count = read(descriptor, buffer.baseAddress.map { $0 + filled }, buffer.count - filled)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                filled += count
            }
            return true
        }
        return complete ? bytes : nil
    }

    /// Renames `source` over `target` in one step.
    static func replace(_ target: URL, with source: URL) -> Bool {
        rename(source.path, target.path) == 0
    }

    static func remove(_ url: URL) {
        unlink(url.path)
    }

    /// Takes the folder's lock file, held until the returned descriptor is closed; `nil` when another process (or
    /// another open of it) holds it.
    static func lock(_ folder: URL) -> Int32? {
        let descriptor = open(
            folder.appendingPathComponent(".lock").path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    /// Writes `salt` back into a folder made again after it went away, so that the entries still known keep their
    /// names.
    static func restoreSalt(_ salt: [UInt8], in folder: URL) -> Bool {
        let url = folder.appendingPathComponent(".salt")
        if contents(of: url, atMost: 32) == salt { return true }
        unlink(url.path)
        return writeNew(salt, to: url)
    }

    /// The folder's salt for digests: read, or made from random bytes when missing or not 32 bytes of the user's.
    static func salt(in folder: URL) -> [UInt8]? {
        let url = folder.appendingPathComponent(".salt")
        if let salt = contents(of: url, atMost: 32), salt.count == 32 { return salt }
        unlink(url.path)
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return writeNew(salt, to: url) ? salt : nil
    }
}
