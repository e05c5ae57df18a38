import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request body the transport streams instead of setting `httpBody`.
enum UploadBody: Sendable {
    /// Bytes in memory.
    case data(Data)
    /// Bytes and file ranges of a declared total length, read as they are sent (`UploadBodyStream`).
    case segments([UploadBodyStream.Segment], length: Int64)

    var length: Int64 {
        switch self {
        case .data(let data): Int64(data.count)
        case .segments(_, let length): length
        }
    }

    /// The body an upload of `kind` sends, or `nil` for a request without one. Sets a multipart request's
    /// Content-Type when it has no boundary. Bytes in memory go as they are; a file, and a multipart form with a
    /// file part or larger than `multipartMemoryThreshold`, stream from disk with their declared lengths.
    static func prepare(
        for kind: RequestKind, of request: inout URLRequest, multipartMemoryThreshold: Int
    ) throws(NALError) -> UploadBody? {
        switch kind {
        case .data, .download:
            return nil
        case .upload(.data(let data)):
            return .data(data)
        case .upload(.file(let file)):
            let length = try FileAccess.readableFileSize(file)
            return .segments([.file(file, length: length)], length: length)
        case .upload(.multipart(let parts)):
            let boundary = request.value(forHTTPHeaderField: "Content-Type").flatMap(
                MultipartEncoder.boundary(inContentType:))
            let encoder = MultipartEncoder(parts: parts, boundary: boundary)
            if boundary == nil { request.setValue(encoder.contentType, forHTTPHeaderField: "Content-Type") }
            let segments = try encoder.segments()
            let length = try UploadBodyStream.Segment.totalLength(of: segments)
            if encoder.isInMemory && length <= Int64(multipartMemoryThreshold) {
                return .data(try encoder.encodedData())
            }
            return .segments(segments, length: length)
        }
    }
}
