extension FileFailure: CustomStringConvertible {
    /// A sentence that names the file, its part in the transfer, and what to do.
    public var description: String {
        let path = DisplayText.capped(url.path.debugEscaped)
        let file =
            switch role {
            case .uploadSource: "the file to upload, \(path),"
            case .downloadDestination: "the download destination \(path)"
            case .temporaryFile: "the temporary file \(path)"
            }
        return
            switch problem
        {
        case .missing: "\(file) does not exist (or its directory does not)."
        case .isDirectory: "\(file) is a directory; name a file."
        case .notReadable: "\(file) cannot be read; check its permissions."
        case .notWritable: "\(file) cannot be written: its directory is read-only or not ours."
        case .diskFull: "\(file) could not be written: the disk or quota is full."
        case .notRegularFile:
            "\(file) is not a regular file (a FIFO, socket, device, or a /proc-style file that reports no size); "
                + "copy it to a regular file first."
        case .alreadyExists:
            "\(file) already exists; pass .replaceExistingFile to replace it."
        case .other(let message): "\(file) could not be used: \(DisplayText.capped(message))."
        }
    }
}
