#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a path names, as a reader of files needs to say it: something other than a regular file (a FIFO would block
/// a read forever, `/dev/zero` would never end) is refused by name, not as a permission problem.
package enum FileKind: Equatable, Sendable {
    case regular
    case directory
    case fifo
    case characterDevice
    case blockDevice
    case socket
    case missing
    /// `stat` failed for another reason, given as `errno`.
    case unknown(Int32)

    /// The kind of what `path` names, following symbolic links.
    package init(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            self = errno == ENOENT || errno == ENOTDIR ? .missing : .unknown(errno)
            return
        }
        self.init(mode: info.st_mode)
    }

    /// The kind a `stat`'s `st_mode` names.
    init(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .directory
        case S_IFIFO: self = .fifo
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        case S_IFSOCK: self = .socket
        default: self = .unknown(0)
        }
    }

    /// Why a file of this kind cannot be read as a file ("is a FIFO (named pipe), not a regular file"), or `nil`
    /// for a regular file and for a failure the read itself will name.
    package var problem: String? {
        switch self {
        case .regular, .unknown: nil
        case .missing: "does not exist"
        case .directory: "is a directory, not a file"
        case .fifo: "is a FIFO (named pipe), not a regular file"
        case .characterDevice: "is a character device, not a regular file"
        case .blockDevice: "is a block device, not a regular file"
        case .socket: "is a socket, not a regular file"
        }
    }
}
