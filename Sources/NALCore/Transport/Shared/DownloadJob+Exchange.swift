import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension DownloadJob {
    /// A whole download over a transport: `exchange` with its routing set to the job (or what `routing` makes of it),
    /// sent by `send`, which follows redirects and hands back the final response; resumed and moved into place by
    /// `run(_:as:to:progress:started:send:)`.
    static func run(
        _ request: URLRequest, as original: URLRequest, to destination: DownloadDestination,
        _ exchange: TransferExchange, started: (date: Date, instant: ContinuousClock.Instant),
        routing: @escaping (DownloadJob) -> any BodyRouting = { $0 },
        send: (URLRequest, TransferExchange) async throws(NALError) -> (HTTPURLResponse, Data)
    ) async throws(NALError) -> Response {
        try await run(request, as: original, to: destination, progress: exchange.progress, started: started) {
            attempt, job throws(NALError) in
            var exchange = exchange
            exchange.routing = routing(job)
            return try await send(attempt, exchange)
        }
    }
}
