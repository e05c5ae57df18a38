import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension DownloadJob {
    func openWriter(_ state: inout State, for response: HTTPURLResponse) throws(NALError) -> FileWriter {
        if let writer = state.writer { return writer }
        let destination = state.destination ?? spec.url(for: response)
        state.destination = destination
        let writer: FileWriter
        if try DownloadFiles.check(destination, options: spec.options) == .device {
            state.intoDevice = true
            writer = try FileWriter(url: destination, role: .downloadDestination, mode: .device)
        } else {
            writer = try destinationError(state) { () throws(NALError) -> FileWriter in
                try FileWriter(url: DownloadFiles.partialURL(for: destination), role: .temporaryFile, mode: .createNew)
            }
            _ = writer.tryLock()
        }
        state.writer = writer
        return writer
    }

    func destinationError<Value>(
        _ state: State, _ body: () throws(NALError) -> Value
    ) throws(NALError) -> Value {
        do {
            return try body()
        } catch {
            throw Self.asDestinationError(error, state.destination)
        }
    }

    /// A partial file's failure, reported for the destination the caller named.
    static func asDestinationError(_ error: NALError, _ destination: URL?) -> NALError {
        guard case .file(let failure) = error, let destination else { return error }
        return .file(
            FileFailure(
                role: .downloadDestination, problem: failure.problem, url: destination, underlying: failure.underlying))
    }

    /// A strong ETag, or else Last-Modified: what `If-Range` may carry (RFC 9110, 13.1.5).
    static func validator(of response: HTTPURLResponse) -> String? {
        if let tag = response.value(forHTTPHeaderField: "ETag"), !tag.hasPrefix("W/"), !tag.isEmpty { return tag }
        return response.value(forHTTPHeaderField: "Last-Modified")
    }

    /// A response that breaks the protocol for this download (a range or a length other than announced): the same
    /// server would answer the same way again, so it is not resumed.
    static func protocolBroken(_ description: String, url: URL?) -> NALError {
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        return .transport(URLError(.cannotParseResponse, userInfo: userInfo))
    }
}
