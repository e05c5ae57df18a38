import NALLogging

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

extension URLSessionTransport {
    /// The body an upload streams, and the temporary file to remove afterwards. Sets a multipart request's
    /// Content-Type when it has no boundary. Bytes in memory go as they are; a file, and a multipart form with a
    /// file part, stream from disk with their declared lengths (`UploadBodyStream`). For a stub session the body
    /// goes where a URLProtocol can see it: bytes into `httpBody`, a file's path into a header (a multipart form
    /// with files is written to a temporary file first, off the caller's thread).
    func uploadBody(
        for kind: RequestKind, of request: inout URLRequest
    ) async throws(NALError) -> (upload: UploadBody?, temporaryFile: URL?) {
        guard
            let upload = try UploadBody.prepare(
                for: kind, of: &request, multipartMemoryThreshold: multipartMemoryThreshold)
        else { return (nil, nil) }
        guard marksRequestsForStubs else { return (upload, nil) }
        switch upload {
        case .data(let data):
            request.httpBody = data
            return (nil, nil)
        case .segments(let segments, _):
            if segments.count == 1, case .file(let file, _) = segments[0] {
                request.setValue(file.path, forHTTPHeaderField: StubSessionSeam.uploadFileHeader)
                return (nil, nil)
            }
            let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                "nal-multipart-\(UUID().uuidString)")
            try await FileAccess.offThread { () throws(NALError) in try MultipartEncoder.write(segments, to: file) }
            request.setValue(file.path, forHTTPHeaderField: StubSessionSeam.uploadFileHeader)
            return (nil, file)
        }
    }
}
