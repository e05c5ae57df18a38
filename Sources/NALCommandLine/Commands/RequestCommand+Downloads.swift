import Foundation
import NALCore

/// Where `-o`, `-O` and `--output-dir` save a body: as curl reads them, and `-o dir/`, which curl refuses (exit 23),
/// saves in `dir` under the URL's file name.
extension RequestCommand {
    /// The file a download is saved to, or `nil` when the body goes to standard output. `-o file` names it (in
    /// `--output-dir` when relative); `-o dir/` and `-O` save under the URL's last path segment. `-o` naming an
    /// existing directory without the slash is refused, where curl would fail to write.
    static func downloadFile(_ arguments: ParsedArguments, url: URL) throws(UsageError) -> URL? {
        let directory = arguments.value("output-dir").map { URL(fileURLWithPath: $0, isDirectory: true) }
        if let output = arguments.value("output") {
            guard !arguments.has("remote-name") else {
                throw UsageError(message: "-o and -O both name the file; give one of them")
            }
            if writesToStandardOutput(output) { return nil }
            guard !output.isEmpty else { throw UsageError(message: "--output takes a file name, '-' or a directory") }
            let named = URL(fileURLWithPath: output, relativeTo: output.hasPrefix("/") ? nil : directory)
            if output.hasSuffix("/") { return named.appendingPathComponent(try remoteName(of: url)) }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: named.path, isDirectory: &isDirectory), isDirectory.boolValue {
                // curl fails here (exit 23); saving inside it is asked for with a trailing slash.
                let shown = TerminalText.visible(output)
                throw UsageError(message: "'\(shown)' is a directory; write '\(shown)/' to save in it")
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
            let shown = SensitiveData.current.redacting(url: url.absoluteString)
            throw UsageError(
                message:
                    "the URL '\(TerminalText.visible(shown))' has no file name to save under; name the file with -o")
        }
        return name
    }
}
