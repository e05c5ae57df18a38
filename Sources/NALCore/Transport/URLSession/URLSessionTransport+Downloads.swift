import NALLogging

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

extension URLSessionTransport {
    /// Streams the body to `destination`'s partial file, resumes with a range request when the connection breaks
    /// and the server allows it, and moves the file into place. A response that is not a success keeps its body in
    /// memory and leaves no file.
    ///
    /// FoundationNetworking decodes a content coding itself and cannot tell one that ends early from a whole one, so
    /// a download asks for no coding (`Accept-Encoding: identity`) unless the request names one, and a coded body it
    /// did not ask for is refused rather than published.
    func download(
        _ request: URLRequest, as original: URLRequest, to destination: DownloadDestination, _ exchange: Exchange,
        started: (date: Date, instant: ContinuousClock.Instant)
    ) async throws(NALError) -> Response {
        var request = request
        let asksForCoding = request.value(forHTTPHeaderField: "Accept-Encoding") != nil
        #if canImport(FoundationNetworking)
            if !asksForCoding { request.setValue("identity", forHTTPHeaderField: "Accept-Encoding") }
            let refusesUnaskedCodings = !asksForCoding
        #else
            let refusesUnaskedCodings = false
        #endif
        return try await DownloadJob.run(
            request, as: original, to: destination, exchange, started: started,
            routing: { job in refusesUnaskedCodings ? UnaskedCodingRefusal(job: job) : job as any BodyRouting }
        ) { attempt, exchange throws(NALError) in
            try await followingRedirects(attempt, upload: nil, exchange)
        }
    }
}

/// A download's routing that refuses a body in a content coding the request did not ask for: FoundationNetworking
/// would decode it, and a coding cut short would be published as a whole file.
struct UnaskedCodingRefusal: BodyRouting {
    let job: DownloadJob

    func route(for response: HTTPURLResponse) throws(NALError) -> BodyRoute {
        // A response that is not the file (a 404, a redirect) keeps its body in memory, coded or not; one with no
        // body (204, 205, `Content-Length: 0`) has nothing to cut short.
        guard (200..<300).contains(response.statusCode), response.statusCode != 204, response.statusCode != 205,
            response.value(forHTTPHeaderField: "Content-Length")?.trimmingCharacters(in: .whitespaces) != "0",
            let coding = response.value(forHTTPHeaderField: "Content-Encoding"), coding.lowercased() != "identity"
        else { return try job.route(for: response) }
        throw .transport(
            URLError(
                .cannotDecodeContentData,
                userInfo: [
                    NSLocalizedDescriptionKey:
                        "the server sent the download in a content coding it was not asked for "
                        + "(\(DisplayText.capped(coding))), and URLSessionTransport on Linux cannot tell such a body "
                        + "cut short from a whole one: nothing is published (CurlTransport checks codings; or name the "
                        + "coding in Accept-Encoding to take it unchecked)",
                    NSURLErrorFailingURLErrorKey: response.url as Any,
                ]))
    }

    func write(_ data: Data) throws(NALError) {
        try job.write(data)
    }
}
