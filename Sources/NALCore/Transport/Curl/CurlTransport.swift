#if os(Linux)
    import CCurl
    package import Foundation
    package import FoundationNetworking
    import NALLogging

    /// Sends requests with libcurl's multi interface directly, on one event-loop thread, without URLSession's
    /// queues and delegate hops. Linux only: it opens the libcurl that FoundationNetworking links (`libcurl.so.4`,
    /// or the file named by `NAL_LIBCURL`) at run time, so nothing has to be installed.
    ///
    /// Work in progress (issue 21), package-only until it matches URLSessionTransport: requests, uploads (bytes,
    /// files and multipart forms streamed from disk through libcurl's read callback, on the event loop's thread),
    /// downloads to a destination with resume and the atomic move (`DownloadJob`, shared with URLSessionTransport),
    /// progress, and streamed bodies, which pause the transfer while the consumer is behind (no spill file).
    ///
    /// - Connections are reused, at most `maximumConnectionsPerHost` per host; HTTP/2 over TLS when ALPN agrees.
    /// - TLS is verified. Proxies come from the environment (`http_proxy`, `https_proxy`, `no_proxy`) as libcurl
    ///   reads them. No cookies are stored or sent unless the request carries a `Cookie` header.
    /// - NAL follows redirects itself (`RedirectPolicy`), with the same credential rules as `URLSessionTransport`.
    /// - The idle timeout is enforced by the event loop with millisecond precision; the body limit counts bytes
    ///   after decompression and ends the transfer at the first byte past it.
    package final class CurlTransport: Transport {
        /// The most redirects one call follows.
        package static let maximumRedirects = URLSessionTransport.maximumRedirects

        private let loop: CurlEventLoop
        package let maximumResponseSize: Int
        package let redirectPolicy: RedirectPolicy
        /// The idle timeout of a request that keeps URLRequest's default of 60 s.
        package let idleTimeout: TimeInterval

        /// Creates a transport and its event-loop thread; throws `NALError.transport` with `URLError.Code
        /// .unsupportedURL` and libcurl's loading error when libcurl cannot be loaded.
        package init(
            maximumResponseSize: Int = URLSessionTransport.defaultMaximumResponseSize,
            redirectPolicy: RedirectPolicy = .follow, idleTimeout: TimeInterval = 60,
            maximumConnectionsPerHost: Int = 6
        ) throws(NALError) {
            try Self.loadLibrary()
            self.maximumResponseSize = maximumResponseSize
            self.redirectPolicy = redirectPolicy
            self.idleTimeout = idleTimeout
            loop = try CurlEventLoop(maximumConnectionsPerHost: maximumConnectionsPerHost)
        }

        deinit {
            loop.shutDown()
        }

        private static func loadLibrary() throws(NALError) {
            guard let failure = nal_curl_load() else { return }
            throw .transport(
                URLError(.unsupportedURL, userInfo: [NSLocalizedDescriptionKey: String(cString: failure)]))
        }

        /// What one call's exchanges share.
        struct Exchange {
            let idleTimeout: TimeInterval
            let limit: Int
            let streamsBody: Bool
            let progress: ProgressReporter?
            var routing: (any BodyRouting)?
        }

        /// Sends `request`, follows redirects, and collects the whole body, streams it, or writes a download's file.
        package func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
            try URLSessionTransport.checkSendable(request)
            var sent = request
            let upload = try UploadBody.prepare(
                for: context.kind, of: &sent,
                multipartMemoryThreshold: URLSessionTransport.defaultMultipartMemoryThreshold)
            var reported = request
            if let type = sent.value(forHTTPHeaderField: "Content-Type") {
                reported.setValue(type, forHTTPHeaderField: "Content-Type")
            }
            let exchange = Exchange(
                idleTimeout: try idleTimeout(of: request),
                limit: context.options.maximumResponseSize ?? maximumResponseSize,
                streamsBody: context.streamsBody && !context.kind.isDownload,
                progress: context.progressReporter(totalBytesToSend: upload?.length))
            let started = (date: Date(), instant: ContinuousClock.now)
            if case .download(let destination) = context.kind {
                return try await download(sent, as: reported, to: destination, exchange, started: started)
            }
            let reply = try await followingRedirects(sent, upload: upload, exchange)
            if reply.stream == nil { exchange.progress?.complete() }
            return Response(
                request: reported, httpResponse: reply.response, data: reply.data,
                timing: ResponseTiming(start: started.date, duration: .now - started.instant),
                streamedBody: reply.stream)
        }

        /// Writes the body to `destination`'s partial file, resumes, and moves the file into place: `DownloadJob`, as
        /// URLSessionTransport does.
        private func download(
            _ request: URLRequest, as original: URLRequest, to destination: DownloadDestination, _ exchange: Exchange,
            started: (date: Date, instant: ContinuousClock.Instant)
        ) async throws(NALError) -> Response {
            try await DownloadJob.run(
                request, as: original, to: destination, progress: exchange.progress, started: started
            ) { attempt, job throws(NALError) in
                var exchange = exchange
                exchange.routing = job
                let reply = try await followingRedirects(attempt, upload: nil, exchange)
                return (reply.response, reply.data)
            }
        }

        /// Sends `request` and the redirects that follow; an upload's body goes along where the method is kept (307,
        /// 308).
        private func followingRedirects(
            _ request: URLRequest, upload: UploadBody?, _ exchange: Exchange
        ) async throws(NALError) -> CurlTransfer.Reply {
            var sent = request
            var upload = upload
            var redirects = 0
            while true {
                let reply = try await self.exchange(sent, upload: upload, exchange)
                // libcurl, like URLSession, hands over a gzip body too short to be one as empty, without an error.
                if let cutShort = SessionDelegate.truncatedGzip(reply.response, url: sent.url) {
                    reply.stream?.stop(with: .cancelled)
                    throw cutShort
                }
                guard let next = try followUp(to: sent, after: reply.response) else { return reply }
                reply.stream?.stop(with: .cancelled)
                redirects += 1
                guard redirects <= Self.maximumRedirects else {
                    throw .transport(
                        URLError(.httpTooManyRedirects, userInfo: [NSURLErrorFailingURLErrorKey: next.url as Any]))
                }
                // The body goes along only where the method is kept (307, 308).
                if (next.httpMethod ?? "GET") != (sent.httpMethod ?? "GET") { upload = nil }
                sent = next
            }
        }

        /// The next request of a redirect chain, checked as any request is, or `nil` to return `response`.
        private func followUp(to request: URLRequest, after response: HTTPURLResponse) throws(NALError) -> URLRequest? {
            guard let next = redirectPolicy.nextRequest(after: response, to: request) else { return nil }
            try URLSessionTransport.checkSendable(next)
            return next
        }

        /// One request and its response, without following redirects.
        private func exchange(
            _ request: URLRequest, upload: UploadBody?, _ exchange: Exchange
        ) async throws(NALError) -> CurlTransfer.Reply {
            guard let url = request.url else { throw .invalidRequest(.missingURL) }
            let transfer = try CurlTransfer(
                request, upload: upload, url: url,
                idleTimeout: .milliseconds(Int64((exchange.idleTimeout * 1000).rounded(.up))), limit: exchange.limit,
                streamsBody: exchange.streamsBody, routing: exchange.routing, progress: exchange.progress)
            let outcome = await withTaskCancellationHandler {
                loop.start(transfer)
                return await transfer.outcomeWhenFinished()
            } onCancel: {
                // The loop ends the call once the transfer is out of libcurl's hands, within a wake-up.
                loop.stop(transfer)
            }
            return try outcome.get()
        }

        private func idleTimeout(of request: URLRequest) throws(NALError) -> TimeInterval {
            guard request.timeoutInterval != 60 else { return idleTimeout }
            try RequestOptions.validate(request.timeoutInterval, setting: "URLRequest timeoutInterval")
            return request.timeoutInterval
        }
    }
#endif
