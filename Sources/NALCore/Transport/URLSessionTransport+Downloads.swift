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
    func download(
        _ request: URLRequest, as original: URLRequest, to destination: DownloadDestination, _ exchange: Exchange,
        started: (date: Date, instant: ContinuousClock.Instant)
    ) async throws(NALError) -> Response {
        try await DownloadJob.run(
            request, as: original, to: destination, progress: exchange.progress, started: started
        ) { attempt, job throws(NALError) in
            var exchange = exchange
            exchange.routing = job
            return try await followingRedirects(attempt, upload: nil, exchange)
        }
    }
}
