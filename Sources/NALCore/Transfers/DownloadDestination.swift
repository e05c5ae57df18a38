public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// Where a downloaded file ends up.
public struct DownloadDestination: Sendable {
    /// What to do at the destination before moving the file there.
    public struct Options: OptionSet, Sendable {
        /// The option bits.
        public let rawValue: Int
        /// Creates options from their bits.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Create missing parent directories.
        public static let createIntermediateDirectories = Options(rawValue: 1 << 0)
        /// Replace a file already at the destination.
        public static let removePreviousFile = Options(rawValue: 1 << 1)
    }

    /// Chooses the final file URL from the temporary file and the response.
    public let resolve: @Sendable (_ temporaryURL: URL, _ response: HTTPURLResponse) -> URL
    /// What to do at the destination before moving the file there.
    public let options: Options

    /// Creates a destination chosen per response.
    public init(
        options: Options = [],
        resolve: @escaping @Sendable (_ temporaryURL: URL, _ response: HTTPURLResponse) -> URL
    ) {
        self.options = options
        self.resolve = resolve
    }

    /// Always the given file, creating parent directories and replacing an earlier file.
    public static func file(
        _ url: URL,
        options: Options = [.createIntermediateDirectories, .removePreviousFile]
    ) -> DownloadDestination {
        DownloadDestination(options: options) { _, _ in url }
    }
}
