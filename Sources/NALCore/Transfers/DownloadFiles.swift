import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file-system side of a download (`DownloadJob`): the partial file's unpredictable name, what kind of file the
/// destination is, and the final move into place.
enum DownloadFiles {
    /// `.name.nal-partial-<random>` beside the destination: a name nobody can know in advance, with the
    /// destination's name shortened when needed so that it fits in the 255 bytes a file name may have.
    static func partialURL(for destination: URL) -> URL {
        let random = (0..<2).map { _ in String(UInt64.random(in: 0...UInt64.max), radix: 16) }.joined()
        let suffix = ".nal-partial-\(random)"
        var name = destination.lastPathComponent
        while 1 + name.utf8.count + suffix.utf8.count > 255 { name.unicodeScalars.removeLast() }
        return destination.deletingLastPathComponent().appendingPathComponent(".\(name)\(suffix)")
    }

    enum DestinationKind { case file, device }

    /// What the destination is: a regular file (or nothing yet) is replaced by rename, a character device is written
    /// as it is; a directory, a FIFO or a socket is refused, as is a file that may not be replaced. Creates parent
    /// directories when asked.
    static func check(
        _ destination: URL, options: DownloadDestination.Options
    ) throws(NALError) -> DestinationKind {
        var info = stat()
        // A symbolic link is followed only when root or this user owns it (`/dev/stdout`, a link of one's own);
        // anyone else's link is a file to replace, never a way to write elsewhere.
        var found = lstat(destination.path, &info) == 0
        if found, info.st_mode & S_IFMT == S_IFLNK, info.st_uid == 0 || info.st_uid == geteuid() {
            found = stat(destination.path, &info) == 0
        }
        if found {
            switch info.st_mode & S_IFMT {
            case S_IFLNK: break
            case S_IFCHR: return .device
            case S_IFDIR: throw .file(FileFailure(role: .downloadDestination, problem: .isDirectory, url: destination))
            case S_IFREG: break
            default: throw .file(FileFailure(role: .downloadDestination, problem: .notRegularFile, url: destination))
            }
            if !options.contains(.replaceExistingFile) {
                throw .file(FileFailure(role: .downloadDestination, problem: .alreadyExists, url: destination))
            }
        }
        let directory = destination.deletingLastPathComponent()
        guard !FileManager.default.fileExists(atPath: directory.path) else { return .file }
        guard options.contains(.createIntermediateDirectories) else {
            throw .file(FileFailure(role: .downloadDestination, problem: .missing, url: destination))
        }
        // The first ancestor that exists: it and every directory made below it get new entries to flush.
        var existing = directory.deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: existing.path), existing.path != "/" {
            existing = existing.deletingLastPathComponent()
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .file(
                FileFailure(role: .downloadDestination, problem: .notWritable, url: destination, underlying: error))
        }
        var created = directory
        while created.path.count > existing.path.count {
            syncDirectory(of: created)
            created = created.deletingLastPathComponent()
        }
        return .file
    }

    /// Moves the finished file into place. `rename` replaces atomically (a link at the destination is replaced,
    /// never followed). Without replacing, `link` refuses an existing file atomically; on a file system without
    /// hard links, an empty file created exclusively reserves the name and the rename replaces it.
    static func move(
        _ partial: URL, to destination: URL, replacing: Bool,
        link makeLink: (String, String) -> Int32 = { link($0, $1) }
    ) throws(NALError) {
        if !replacing {
            let linked = makeLink(partial.path, destination.path)
            let code = errno
            if linked == 0 {
                unlink(partial.path)
                syncDirectory(of: destination)
                return
            }
            guard [EPERM, ENOTSUP, EOPNOTSUPP, ENOSYS, EMLINK, EXDEV].contains(code) else {
                unlink(partial.path)
                throw FileAccess.failure(.downloadDestination, destination, errno: code, writing: true)
            }
            let placeholder = open(destination.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard placeholder >= 0 else {
                let code = errno
                unlink(partial.path)
                throw FileAccess.failure(.downloadDestination, destination, errno: code, writing: true)
            }
            close(placeholder)
            guard rename(partial.path, destination.path) == 0 else {
                let code = errno
                // The empty file that reserved the name is ours: it must not stay as if it were the download.
                unlink(destination.path)
                unlink(partial.path)
                throw FileAccess.failure(.downloadDestination, destination, errno: code, writing: true)
            }
            syncDirectory(of: destination)
            return
        }
        guard rename(partial.path, destination.path) == 0 else {
            let code = errno
            unlink(partial.path)
            throw FileAccess.failure(.downloadDestination, destination, errno: code, writing: true)
        }
        syncDirectory(of: destination)
    }

    /// Flushes the directory that holds `file`, so that its new name survives a power cut as its bytes do. Best
    /// effort: a directory this user may not read, or a file system that refuses to sync one, is left as it is, and
    /// the download has succeeded either way.
    static func syncDirectory(of file: URL) {
        let directory = open(file.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { return }
        _ = fsync(directory)
        close(directory)
    }
}
