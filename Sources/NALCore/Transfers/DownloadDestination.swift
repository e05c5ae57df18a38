public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// Where a download's body is stored.
///
/// The body streams, chunk by chunk, into a partial file beside the destination (`.name.nal-partial-<random>` in
/// the same directory, created new and readable by its owner only, so nobody can prepare it or a link in its
/// place), is flushed to disk and moved into place with one atomic rename once it is complete, so the destination
/// never holds half a file and is never missing while an older file is replaced. Two downloads to one destination
/// each write a partial file of their own. A failed download removes its partial file, unless the destination is
/// `.resumable`.
///
/// A destination that is a character device (`/dev/null`) is written as it is, as `curl -o` does; a FIFO, a socket
/// or a directory is refused, never replaced.
public struct DownloadDestination: Sendable {
    /// How the destination treats what is already there.
    public struct Options: OptionSet, Sendable {
        /// The option bits.
        public let rawValue: Int
        /// Creates options from their bits.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Create missing parent directories.
        public static let createIntermediateDirectories = Options(rawValue: 1 << 0)
        /// Replace a file already at the destination (atomically). Without it, an existing file is an error.
        public static let replaceExistingFile = Options(rawValue: 1 << 1)
        /// Keep the partial file of a failed download, and resume from it next time the same URL is downloaded to
        /// the same destination (when the server supports ranges and the file has not changed). The partial file is
        /// found through a small record in the destination's directory, keyed by the URL, and reused only if it is
        /// still the regular file NAL created.
        public static let resumable = Options(rawValue: 1 << 2)
    }

    /// How the destination treats what is already there.
    public let options: Options
    private let choose: @Sendable (_ response: HTTPURLResponse) -> URL
    /// Where a resumable download keeps its record, when known before any response (`.file` and `.directory`).
    let knownDirectory: URL?
    /// The file, when it does not depend on the response (`.file`).
    let knownFile: URL?

    /// A destination chosen from the response, for example from its `Content-Disposition` file name.
    public init(options: Options = [], _ choose: @escaping @Sendable (_ response: HTTPURLResponse) -> URL) {
        self.init(options: options, directory: nil, file: nil, choose)
    }

    private init(
        options: Options, directory: URL?, file: URL?,
        _ choose: @escaping @Sendable (_ response: HTTPURLResponse) -> URL
    ) {
        self.options = options
        knownDirectory = directory?.standardizedFileURL
        knownFile = file?.standardizedFileURL
        self.choose = choose
    }

    /// Always the file at `url`. By default, parent directories are created and an existing file is replaced.
    public static func file(
        _ url: URL, options: Options = [.createIntermediateDirectories, .replaceExistingFile]
    ) -> DownloadDestination {
        DownloadDestination(options: options, directory: url.deletingLastPathComponent(), file: url) { _ in url }
    }

    /// A file in `directory`, named by the response's `Content-Disposition` file name, or else the last component
    /// of the response's URL. Names are reduced to one safe path component: no `/`, no `..`, no leading dot, at
    /// most 200 bytes. With `.resumable`, the name is still the first response's, and a resumed download keeps it.
    public static func directory(
        _ directory: URL, options: Options = [.createIntermediateDirectories, .replaceExistingFile]
    ) -> DownloadDestination {
        DownloadDestination(options: options, directory: directory, file: nil) { response in
            directory.appendingPathComponent(suggestedFileName(for: response))
        }
    }

    /// The destination for `response`.
    public func url(for response: HTTPURLResponse) -> URL {
        choose(response).standardizedFileURL
    }

    /// The longest file name `directory` chooses, in UTF-8 bytes.
    package static let maximumNameBytes = 200

    /// A file name from `Content-Disposition` (`filename*` first) or the URL, made safe to join to a directory.
    package static func suggestedFileName(for response: HTTPURLResponse) -> String {
        let disposition = response.value(forHTTPHeaderField: "Content-Disposition").flatMap(ContentDisposition.fileName)
        let candidate = disposition ?? response.url?.lastPathComponent ?? ""
        var name = String(
            candidate.unicodeScalars.map { scalar -> Character in
                scalar == "/" || scalar == "\\" || scalar.value < 0x20 || scalar.value == 0x7F ? "_" : Character(scalar)
            })
        // Linear in the name, however long a server made it: no character removed one at a time from the front.
        name = String(name.drop { $0 == "." })
        // File systems allow 255 bytes; the partial file's name adds about 30. Cut at a character boundary.
        if name.utf8.count > maximumNameBytes {
            var kept = ""
            for character in name {
                guard kept.utf8.count + character.utf8.count <= maximumNameBytes else { break }
                kept.append(character)
            }
            name = kept
        }
        return name.isEmpty ? "download" : name
    }
}
