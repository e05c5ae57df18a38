public import Foundation

/// Which file of a transfer could not be used, and why.
public struct FileFailure: Sendable {
    /// The file's part in the transfer.
    public enum Role: Sendable, Equatable {
        /// A file to upload, alone or as a multipart part.
        case uploadSource
        /// Where a download goes.
        case downloadDestination
        /// A temporary file NAL writes: a large multipart body, or a download's partial file.
        case temporaryFile
    }

    /// What is wrong with the file.
    public enum Problem: Sendable, Equatable {
        /// Nothing is at the path (or a parent directory is missing).
        case missing
        /// The path is a directory.
        case isDirectory
        /// The file exists but cannot be read.
        case notReadable
        /// The file or its directory cannot be written (read-only, or no permission).
        case notWritable
        /// The disk or quota is full.
        case diskFull
        /// Something is already at the destination and the destination does not replace files.
        case alreadyExists
        /// The path is not a regular file: a FIFO, a socket, a device, or a file such as those of `/proc` that says
        /// it is empty but is not. NAL uploads regular files, whose length it can state and keep to, and downloads to
        /// regular files (or streams into a character device such as `/dev/null`).
        case notRegularFile
        /// Another error, with the system's message.
        case other(String)
    }

    /// The file's part in the transfer.
    public let role: Role
    /// What is wrong.
    public let problem: Problem
    /// The file.
    public let url: URL
    /// The system's error, when there is one.
    public let underlying: (any Error)?

    /// Creates a failure.
    public init(role: Role, problem: Problem, url: URL, underlying: (any Error)? = nil) {
        self.role = role
        self.problem = problem
        self.url = url
        self.underlying = underlying
    }
}
