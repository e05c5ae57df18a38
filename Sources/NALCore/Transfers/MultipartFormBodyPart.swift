public import Foundation

/// One part of a `multipart/form-data` upload.
public struct MultipartFormBodyPart: Sendable {
    /// Where a part's bytes come from.
    public enum Provider: Sendable {
        /// Bytes in memory.
        case data(Data)
        /// The contents of a file, read when the body is sent.
        case file(URL)
    }

    /// Where this part's bytes come from.
    public var provider: Provider
    /// The form field name.
    public var name: String
    /// The file name reported to the server, if any.
    public var fileName: String?
    /// The part's MIME type, if any.
    public var mimeType: String?

    /// Creates a part.
    public init(provider: Provider, name: String, fileName: String? = nil, mimeType: String? = nil) {
        self.provider = provider
        self.name = name
        self.fileName = fileName
        self.mimeType = mimeType
    }
}
