import NALLogging

#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// Sends requests with `URLSession`, through a session delegate, built around the Linux facts of
/// FoundationNetworking.
///
/// - Every body chunk is appended in the delegate (a completion handler sees only the last one on Linux). At most
///   `maximumResponseSize` bytes are kept; past that the call ends at once with `NALError.responseTooLarge`, and
///   the transfer is cancelled off the delegate queue so that queued chunks are dropped instead of piling up.
/// - Before sending, the request is checked as it will go out: `http` or `https`, header names and values, no
///   framing header, a valid timeout.
/// - The configuration's `httpAdditionalHeaders` are moved onto each request (the request's own headers win), so
///   that they follow the same redirect rules as every other header.
/// - Redirects are followed by NAL (see `RedirectPolicy`): 307 and 308 keep their method and body, and sensitive
///   headers never cross origins.
/// - The idle timeout (`request.timeoutInterval`, or the configuration's `timeoutIntervalForRequest` when the
///   request keeps URLRequest's default of 60 s) is enforced by NAL with millisecond precision; FoundationNetworking
///   rounds it down to whole seconds and crashes on NaN or huge values.
/// - Download tasks are never created (they crash custom URLProtocols on Linux). Cancelling the calling `Task`
///   ends the call with `NALError.cancelled` at once and cancels the `URLSessionTask`.
public final class URLSessionTransport: Transport {
    /// The default in-memory limit for a response body: 64 MiB.
    public static let defaultMaximumResponseSize = 64 << 20
    /// The most redirects one call follows.
    public static let maximumRedirects = 20
    /// URLRequest's own default, which means "not set": the configuration's idle timeout applies instead.
    private static let defaultRequestTimeout: TimeInterval = 60

    private let session: URLSession
    private let tasks: SessionTasks
    private let redirectPolicy: RedirectPolicy
    /// The configuration's `httpAdditionalHeaders`, sent by NAL on each request instead of by URLSession.
    private let additionalHeaders: [(name: String, value: String)]
    /// The configuration's `timeoutIntervalForRequest`.
    private let sessionIdleTimeout: TimeInterval
    /// Whether the session answers from NAL's stub server, which must know it is talking to this transport.
    private let marksRequestsForStubs: Bool
    /// The most bytes of body kept in memory; more ends the call with `NALError.responseTooLarge`. Downloads to a
    /// file are not limited by it.
    public let maximumResponseSize: Int
    /// The size up to which a multipart body made only of in-memory parts is built in memory; a larger one, and
    /// any form with a file part, streams piece by piece with its declared length.
    public let multipartMemoryThreshold: Int
    /// The default `multipartMemoryThreshold`: 10 MiB.
    public static let defaultMultipartMemoryThreshold = 10 << 20

    /// Creates a transport with its own session.
    public init(
        configuration: URLSessionConfiguration = .default,
        maximumResponseSize: Int = URLSessionTransport.defaultMaximumResponseSize,
        redirectPolicy: RedirectPolicy = .follow,
        multipartMemoryThreshold: Int = URLSessionTransport.defaultMultipartMemoryThreshold
    ) {
        self.maximumResponseSize = maximumResponseSize
        self.multipartMemoryThreshold = multipartMemoryThreshold
        self.redirectPolicy = redirectPolicy
        let own = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        additionalHeaders = (own.httpAdditionalHeaders ?? [:])
            .map { (name: "\($0.key)", value: "\($0.value)") }
            .sorted { $0.name < $1.name }
        own.httpAdditionalHeaders = nil
        sessionIdleTimeout = own.timeoutIntervalForRequest
        marksRequestsForStubs = StubbingSupport.includesStubbing(own.protocolClasses)
        // NAL enforces the idle timeout; Foundation's whole-second timer is only a backstop that never fires first.
        own.timeoutIntervalForRequest = Self.backstop(for: sessionIdleTimeout)
        tasks = SessionTasks()
        session = URLSession(configuration: own, delegate: tasks, delegateQueue: SerialDelegateQueue())
    }

    deinit {
        // The session keeps its delegate alive until it is invalidated.
        session.finishTasksAndInvalidate()
    }

    /// Sends `request`, follows redirects, and collects the whole body, or streams it to a download's file.
    public func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
        var request = request
        try addAdditionalHeaders(to: &request)
        try Self.checkSendable(request)
        let idleTimeout = try idleTimeout(of: request)
        let started = (date: Date(), instant: ContinuousClock.now)
        // What goes on the wire: the caller's request, plus the stub server's markers for a stub session. The
        // response reports the caller's request, never the markers.
        var sent = request
        if marksRequestsForStubs { sent.setValue("1", forHTTPHeaderField: StubbingSupport.markerHeader) }
        let (upload, temporaryFile) = try await uploadBody(for: context.kind, of: &sent)
        defer { if let temporaryFile { try? FileManager.default.removeItem(at: temporaryFile) } }
        if let type = sent.value(forHTTPHeaderField: "Content-Type") {
            request.setValue(type, forHTTPHeaderField: "Content-Type")
        }
        let progress = context.progressReporter(totalBytesToSend: upload?.length ?? temporaryFile.flatMap(Self.size))

        let limit = context.options.maximumResponseSize ?? maximumResponseSize
        // A request with its own timeout gets the backstop in place of it (Foundation would truncate 0.5 to 0); one
        // that keeps the default uses the session's, so the common case copies nothing.
        if sent.timeoutInterval != Self.defaultRequestTimeout {
            sent.timeoutInterval = Self.backstop(for: idleTimeout)
        }
        let exchange = Exchange(limit: limit, idleTimeout: idleTimeout, progress: progress)
        if case .download(let destination) = context.kind {
            return try await download(sent, as: request, to: destination, exchange, started: started)
        }
        let (httpResponse, data) = try await followingRedirects(sent, upload: upload, exchange)
        progress?.complete()
        return Response(
            request: request, httpResponse: httpResponse, data: data,
            timing: ResponseTiming(start: started.date, duration: .now - started.instant))
    }

    private static func size(of file: URL) -> Int64? {
        try? FileAccess.readableFileSize(file, role: .temporaryFile)
    }

    /// What one call's exchanges share.
    private struct Exchange {
        let limit: Int
        let idleTimeout: TimeInterval
        let progress: ProgressReporter?
        var routing: (any BodyRouting)?
    }

    /// Sends `request` and the redirects that follow; an upload's body goes along where the method is kept (307,
    /// 308).
    private func followingRedirects(
        _ request: URLRequest, upload: UploadBody?, _ exchange: Exchange
    ) async throws(NALError) -> (HTTPURLResponse, Data) {
        var current = request
        var upload = upload
        var redirects = 0
        while true {
            let (httpResponse, data) = try await tasks.exchange(
                current, in: session, limit: exchange.limit, idleTimeout: exchange.idleTimeout, upload: upload,
                routing: exchange.routing, progress: exchange.progress)
            if let cutShort = SessionTasks.truncatedGzip(httpResponse, url: current.url) { throw cutShort }
            guard var next = try followUp(to: current, after: httpResponse) else { return (httpResponse, data) }
            redirects += 1
            guard redirects <= Self.maximumRedirects else {
                throw .transport(
                    URLError(.httpTooManyRedirects, userInfo: [NSURLErrorFailingURLErrorKey: next.url as Any]))
            }
            if (next.httpMethod ?? "GET") != (current.httpMethod ?? "GET") {
                upload = nil
                next.setValue(nil, forHTTPHeaderField: StubbingSupport.uploadFileHeader)
            }
            current = next
        }
    }

    /// Streams the body to `destination`'s partial file, resumes with a range request when the connection breaks
    /// and the server allows it, and moves the file into place. A response that is not a success keeps its body in
    /// memory and leaves no file.
    private func download(
        _ request: URLRequest, as original: URLRequest, to destination: DownloadDestination, _ exchange: Exchange,
        started: (date: Date, instant: ContinuousClock.Instant)
    ) async throws(NALError) -> Response {
        let job = DownloadJob(destination, for: request)
        var exchange = exchange
        exchange.routing = job
        var resumes = 0
        while true {
            var attempt = request
            for (name, value) in job.resumeHeaders { attempt.setValue(value, forHTTPHeaderField: name) }
            do {
                let (httpResponse, data) = try await followingRedirects(attempt, upload: nil, exchange)
                let timing = ResponseTiming(start: started.date, duration: .now - started.instant)
                switch try job.conclude(httpResponse) {
                case .downloaded(let file, let response):
                    exchange.progress?.complete()
                    return Response(
                        request: original, httpResponse: response, data: Data(), timing: timing, fileURL: file)
                case .notDownloaded:
                    return Response(request: original, httpResponse: httpResponse, data: data, timing: timing)
                case .restart where resumes < DownloadJob.maximumResumes:
                    resumes += 1
                    continue
                case .restart:
                    job.abandon()
                    return Response(request: original, httpResponse: httpResponse, data: data, timing: timing)
                }
            } catch {
                if resumes < DownloadJob.maximumResumes, !Task.isCancelled, job.prepareResume(after: error) {
                    resumes += 1
                    CoreLog.request.notice(
                        "download from \(DisplayText.url(request.url), privacy: .public) interrupted (\(error)); resuming"
                    )
                    continue
                }
                job.abandon()
                throw error
            }
        }
    }

    /// The body an upload streams, and the temporary file to remove afterwards. Sets a multipart request's
    /// Content-Type when it has no boundary. Bytes in memory go as they are; a file, and a multipart form with a
    /// file part, stream from disk with their declared lengths (`UploadBodyStream`). For a stub session the body
    /// goes where a URLProtocol can see it: bytes into `httpBody`, a file's path into a header (a multipart form
    /// with files is written to a temporary file first, off the caller's thread).
    private func uploadBody(
        for kind: RequestKind, of request: inout URLRequest
    ) async throws(NALError) -> (upload: UploadBody?, temporaryFile: URL?) {
        let upload: UploadBody
        switch kind {
        case .data, .download:
            return (nil, nil)
        case .upload(.data(let data)):
            upload = .data(data)
        case .upload(.file(let file)):
            let length = try FileAccess.readableFileSize(file)
            upload = .segments([.file(file, length: length)], length: length)
        case .upload(.multipart(let parts)):
            let boundary = request.value(forHTTPHeaderField: "Content-Type").flatMap(
                MultipartEncoder.boundary(inContentType:))
            let encoder = MultipartEncoder(parts: parts, boundary: boundary)
            if boundary == nil { request.setValue(encoder.contentType, forHTTPHeaderField: "Content-Type") }
            let segments = try encoder.segments()
            let length = segments.reduce(0) { $0 + $1.length }
            if encoder.isInMemory && length <= Int64(multipartMemoryThreshold) {
                upload = .data(try encoder.encodedData())
            } else {
                upload = .segments(segments, length: length)
            }
        }
        guard marksRequestsForStubs else { return (upload, nil) }
        switch upload {
        case .data(let data):
            request.httpBody = data
            return (nil, nil)
        case .segments(let segments, _):
            if segments.count == 1, case .file(let file, _) = segments[0] {
                request.setValue(file.path, forHTTPHeaderField: StubbingSupport.uploadFileHeader)
                return (nil, nil)
            }
            let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                "nal-multipart-\(UUID().uuidString)")
            try await FileAccess.offThread { () throws(NALError) in try MultipartEncoder.write(segments, to: file) }
            request.setValue(file.path, forHTTPHeaderField: StubbingSupport.uploadFileHeader)
            return (nil, file)
        }
    }

    /// The next request of a redirect chain, or `nil` to return `response`.
    private func followUp(to request: URLRequest, after response: HTTPURLResponse) throws(NALError) -> URLRequest? {
        let next = redirectPolicy.nextRequest(after: response, to: request)
        CoreLog.request.debug(
            """
            redirect \(response.statusCode) to \(DisplayText.url(response.value(forHTTPHeaderField: "Location") ?? ""), privacy: .public): \
            \(next == nil ? "not followed" : "followed", privacy: .public)
            """)
        if let next { try Self.checkSendable(next) }
        return next
    }

    /// Moves the configuration's additional headers onto the request; a header the request has wins.
    private func addAdditionalHeaders(to request: inout URLRequest) throws(NALError) {
        for (name, value) in additionalHeaders where request.value(forHTTPHeaderField: name) == nil {
            try request.setValidatedHeader(value, forName: name)
        }
    }

    /// Foundation's own idle timer, in whole seconds, set past NAL's so that it never fires first. An invalid value
    /// is refused before any request is sent, so the backstop only needs to be finite.
    private static func backstop(for idleTimeout: TimeInterval) -> TimeInterval {
        guard idleTimeout.isFinite, idleTimeout > 0 else { return defaultRequestTimeout }
        return min(idleTimeout, RequestOptions.maximumTimeout).rounded(.up) + 1
    }

    /// The idle timeout of `request`: its own, or the session's when it keeps URLRequest's default.
    private func idleTimeout(of request: URLRequest) throws(NALError) -> TimeInterval {
        if request.timeoutInterval == Self.defaultRequestTimeout {
            try RequestOptions.validate(
                sessionIdleTimeout, setting: "URLSessionConfiguration timeoutIntervalForRequest")
            return sessionIdleTimeout
        }
        try RequestOptions.validate(request.timeoutInterval, setting: "URLRequest timeoutInterval")
        return request.timeoutInterval
    }

    /// What every request meets before it goes out, whoever built it: an `http` or `https` URL, and headers that
    /// are tokens, hold no control character, and include no framing header.
    static func checkSendable(_ request: URLRequest) throws(NALError) {
        guard let url = request.url else { throw .invalidRequest(.missingURL) }
        let scheme = url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else { throw .invalidRequest(.unsupportedScheme(scheme)) }
        if let method = request.httpMethod, !HTTPToken.isValid(method) { throw .invalidRequest(.invalidMethod(method)) }
        try HeaderChecks.checkAll(in: request)
    }
}
