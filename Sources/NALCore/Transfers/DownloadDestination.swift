public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// Where a download's body is stored.
///
/// The body streams, chunk by chunk, into a partial file beside the destination (`.name.nal-partial` in the same
/// directory) and is moved into place with one atomic rename once it is complete, so the destination never holds
/// half a file and is never missing while an older file is replaced. A failed download removes its partial file,
/// unless the destination is `.resumable`.
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
        /// the same destination (when the server supports ranges and the file has not changed).
        public static let resumable = Options(rawValue: 1 << 2)
    }

    /// How the destination treats what is already there.
    public let options: Options
    private let choose: @Sendable (_ response: HTTPURLResponse) -> URL

    /// A destination chosen from the response, for example from its `Content-Disposition` file name.
    public init(options: Options = [], _ choose: @escaping @Sendable (_ response: HTTPURLResponse) -> URL) {
        self.options = options
        self.choose = choose
    }

    /// Always the file at `url`. By default, parent directories are created and an existing file is replaced.
    public static func file(
        _ url: URL, options: Options = [.createIntermediateDirectories, .replaceExistingFile]
    ) -> DownloadDestination {
        DownloadDestination(options: options) { _ in url }
    }

    /// A file in `directory`, named by the response's `Content-Disposition` file name, or else the last component
    /// of the response's URL. Names are reduced to one safe path component: no `/`, no `..`, no leading dot.
    public static func directory(
        _ directory: URL, options: Options = [.createIntermediateDirectories, .replaceExistingFile]
    ) -> DownloadDestination {
        DownloadDestination(options: options) { response in
            directory.appendingPathComponent(suggestedFileName(for: response))
        }
    }

    /// The destination for `response`.
    public func url(for response: HTTPURLResponse) -> URL {
        choose(response).standardizedFileURL
    }

    /// A file name from `Content-Disposition` (`filename*` first) or the URL, made safe to join to a directory.
    static func suggestedFileName(for response: HTTPURLResponse) -> String {
        let disposition = response.value(forHTTPHeaderField: "Content-Disposition").flatMap(ContentDisposition.fileName)
        let candidate = disposition ?? response.url?.lastPathComponent ?? ""
        var name = String(
            candidate.unicodeScalars.map { scalar -> Character in
                scalar == "/" || scalar == "\\" || scalar.value < 0x20 || scalar.value == 0x7F ? "_" : Character(scalar)
            })
        while name.hasPrefix(".") { name.removeFirst() }
        return name.isEmpty ? "download" : String(name.prefix(200))
    }
}

/// Reads the file name of a `Content-Disposition` header (RFC 6266): `filename*=UTF-8''…` first, then `filename=`.
enum ContentDisposition {
    static func fileName(_ header: String) -> String? {
        var plain: String?
        for parameter in header.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            switch pair[0].lowercased() {
            case "filename*":
                let parts = pair[1].split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
                if parts.count == 3, parts[0].lowercased() == "utf-8", let decoded = parts[2].removingPercentEncoding {
                    return decoded
                }
            case "filename":
                var value = pair[1]
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                    value = String(value.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
                }
                plain = value
            default:
                continue
            }
        }
        return plain
    }
}
