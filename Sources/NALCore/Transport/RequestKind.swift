public import Foundation

/// How a request's body travels.
public enum RequestKind: Sendable {
    /// The body, if any, is in the `URLRequest`; the response body is kept in memory.
    case data
    /// The body comes from this source.
    case upload(UploadSource)
    /// The response body goes to a file.
    case download(DownloadDestination)
}

/// Where an upload's body comes from.
public enum UploadSource: Sendable {
    /// Bytes in memory.
    case data(Data)
    /// A file's contents.
    case file(URL)
    /// A `multipart/form-data` body made of these parts.
    case multipart([MultipartFormBodyPart])
}

extension RequestType {
    /// How a request of this type travels.
    public var kind: RequestKind {
        switch self {
        case .uploadData(let data): .upload(.data(data))
        case .uploadFile(let url): .upload(.file(url))
        case .uploadMultipart(let parts), .uploadCompositeMultipart(let parts, _): .upload(.multipart(parts))
        case .download(let destination), .downloadParameters(_, _, let destination): .download(destination)
        case .plain, .data, .jsonEncodable, .customJSONEncodable, .parameters, .parameterList, .compositeData,
            .compositeParameters,
            .encodableQuery, .formEncodable:
            .data
        }
    }
}

extension RequestKind {
    /// Whether the body goes to a file.
    var isDownload: Bool {
        if case .download = self { return true }
        return false
    }
}
