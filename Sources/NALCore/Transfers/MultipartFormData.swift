public import Foundation

/// Builds a `multipart/form-data` body (RFC 7578): text fields, data parts and file parts.
///
/// ```swift
/// var form = MultipartFormData()
/// form.append("Ada", name: "author")
/// form.append(fileAt: URL(fileURLWithPath: "/tmp/report.pdf"), name: "report")  // application/pdf
/// let requestType = RequestType.uploadMultipart(form)
/// ```
///
/// Files are read when the body is sent, in chunks, never whole; a body over the transport's threshold is written
/// to a temporary file and streamed. Names and file names are escaped as browsers do (`"` as `%22`, CR as `%0D`, LF
/// as `%0A`), so no value can end its header line or forge another part.
public struct MultipartFormData: Sendable {
    /// The parts, in order.
    public private(set) var parts: [MultipartFormBodyPart] = []

    /// Creates an empty form.
    public init() {}

    /// Creates a form of these parts.
    public init(parts: [MultipartFormBodyPart]) {
        self.parts = parts
    }

    /// Appends a text field.
    public mutating func append(_ value: String, name: String) {
        parts.append(MultipartFormBodyPart(provider: .data(Data(value.utf8)), name: name))
    }

    /// Appends bytes, as a file when `fileName` is given; its type is inferred from the file name's extension
    /// unless `mimeType` says otherwise.
    public mutating func append(_ data: Data, name: String, fileName: String? = nil, mimeType: String? = nil) {
        let type = mimeType ?? fileName.map { MIMEType.forPathExtension(($0 as NSString).pathExtension) }
        parts.append(MultipartFormBodyPart(provider: .data(data), name: name, fileName: fileName, mimeType: type))
    }

    /// Appends a file, read when the body is sent. The file name defaults to the file's own and the type is
    /// inferred from its extension unless `mimeType` says otherwise.
    public mutating func append(fileAt url: URL, name: String, fileName: String? = nil, mimeType: String? = nil) {
        parts.append(
            MultipartFormBodyPart(
                provider: .file(url), name: name, fileName: fileName ?? url.lastPathComponent,
                mimeType: mimeType ?? MIMEType.forPathExtension(url.pathExtension)))
    }
}

extension RequestType {
    /// Uploads `form` as `multipart/form-data`.
    public static func uploadMultipart(_ form: MultipartFormData) -> RequestType {
        .uploadMultipart(form.parts)
    }

    /// Uploads `form` as `multipart/form-data`, plus parameters in the URL query.
    public static func uploadCompositeMultipart(_ form: MultipartFormData, urlParameters: Parameters) -> RequestType {
        .uploadCompositeMultipart(form.parts, urlParameters: urlParameters)
    }
}

/// MIME types for common file extensions; Linux has no system registry NAL can rely on.
package enum MIMEType {
    /// The type for files that no entry names.
    package static let fallback = "application/octet-stream"

    private static let byExtension: [String: String] = [
        "txt": "text/plain", "text": "text/plain", "log": "text/plain", "md": "text/markdown", "csv": "text/csv",
        "tsv": "text/tab-separated-values", "html": "text/html", "htm": "text/html", "css": "text/css",
        "js": "text/javascript", "mjs": "text/javascript", "xml": "application/xml", "json": "application/json",
        "yaml": "application/yaml", "yml": "application/yaml", "pdf": "application/pdf", "zip": "application/zip",
        "gz": "application/gzip", "tgz": "application/gzip", "tar": "application/x-tar",
        "7z": "application/x-7z-compressed",
        "bz2": "application/x-bzip2", "xz": "application/x-xz", "wasm": "application/wasm",
        "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt": "application/vnd.ms-powerpoint",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
        "svg": "image/svg+xml", "ico": "image/vnd.microsoft.icon", "bmp": "image/bmp", "tif": "image/tiff",
        "tiff": "image/tiff", "heic": "image/heic", "avif": "image/avif", "mp3": "audio/mpeg", "wav": "audio/wav",
        "ogg": "audio/ogg", "m4a": "audio/mp4", "aac": "audio/aac", "flac": "audio/flac", "mp4": "video/mp4",
        "m4v": "video/mp4", "mov": "video/quicktime", "webm": "video/webm", "avi": "video/x-msvideo",
        "mkv": "video/x-matroska", "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf", "otf": "font/otf",
        "har": "application/json", "tail": "application/json",
    ]

    /// The type for a file extension (without the dot, any letter case), or `application/octet-stream`.
    package static func forPathExtension(_ pathExtension: String) -> String {
        byExtension[pathExtension.lowercased()] ?? fallback
    }
}
