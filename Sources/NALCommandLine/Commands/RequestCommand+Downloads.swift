import Foundation

/// Where `-o`, `-O` and `--output-dir` save a body, as curl reads them.
extension RequestCommand {
    /// The file a download is saved to, or `nil` when the body goes to standard output. `-o file` names it (in
    /// `--output-dir` when relative); `-o dir/`, or `-o` naming an existing directory, and `-O` save under the URL's
    /// last path segment.
    static func downloadFile(_ arguments: ParsedArguments, url: URL) throws(UsageError) -> URL? {
        let directory = arguments.value("output-dir").map { URL(fileURLWithPath: $0, isDirectory: true) }
        if let output = arguments.value("output") {
            guard !arguments.has("remote-name") else {
                throw UsageError(message: "-o and -O both name the file; give one of them")
            }
            if writesToStandardOutput(output) { return nil }
            let named = URL(fileURLWithPath: output, relativeTo: output.hasPrefix("/") ? nil : directory)
            var isDirectory: ObjCBool = false
            if output.hasSuffix("/")
                || (FileManager.default.fileExists(atPath: named.path, isDirectory: &isDirectory)
                    && isDirectory.boolValue)
            {
                return named.appendingPathComponent(try remoteName(of: url))
            }
            return named
        }
        guard arguments.has("remote-name") else {
            guard directory == nil else {
                throw UsageError(message: "--output-dir says where -o and -O save; give one of them")
            }
            return nil
        }
        let base = directory ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        return base.appendingPathComponent(try remoteName(of: url))
    }

    /// The URL's last path segment as it is written in the URL (`a%20b.zip` stays so, as curl keeps it): never empty,
    /// `.` or `..`, so a file it names is always in the directory chosen.
    static func remoteName(of url: URL) throws(UsageError) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
        let name = String(path.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
        guard !name.isEmpty, name != ".", name != ".." else {
            throw UsageError(
                message: "the URL '\(url.absoluteString)' has no file name to save under; name the file with -o")
        }
        return name
    }
}
