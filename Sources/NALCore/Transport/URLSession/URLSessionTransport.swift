import NALLogging
import NALSupport

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
/// - The idle timeout (the call's, else the configuration's `timeoutIntervalForRequest`: see
///   `TransportContext.idleTimeout`) is enforced by NAL with millisecond precision; FoundationNetworking
///   rounds it down to whole seconds and crashes on NaN or huge values.
/// - Download tasks are never created (they crash custom URLProtocols on Linux). Cancelling the calling `Task`
///   ends the call with `NALError.cancelled` at once and cancels the `URLSessionTask`.
public final class URLSessionTransport: Transport {
    /// The default in-memory limit for a response body: 64 MiB.
    public static let defaultMaximumResponseSize = 64 << 20
    /// The most redirects one call follows.
    public static let maximumRedirects = RedirectPolicy.mostFollowed
    /// FoundationNetworking's own idle timer when nothing better is known.
    private static let defaultRequestTimeout: TimeInterval = 60

    let session: URLSession
    let tasks: SessionDelegate
    let redirectPolicy: RedirectPolicy
    /// The configuration's `httpAdditionalHeaders`, sent by NAL on each request instead of by URLSession.
    private let additionalHeaders: [(name: String, value: String)]
    /// The configuration's `timeoutIntervalForRequest`.
    private let sessionIdleTimeout: TimeInterval
    /// The configuration of the session each streamed call gets to itself.
    let streamConfiguration: URLSessionConfiguration
    /// Whether the session answers from NAL's stub server, which must know it is talking to this transport.
    let marksRequestsForStubs: Bool
    /// The most bytes of body kept in memory; more ends the call with `NALError.responseTooLarge`. Downloads to a
    /// file are not limited by it. It is the guard against a body larger than memory: keep it below what the process
    /// may use (a body the system cannot hold stops the process), and download or stream larger ones.
    public let maximumResponseSize: Int
    /// The size up to which a multipart body made only of in-memory parts is built in memory; a larger one, and
    /// any form with a file part, streams piece by piece with its declared length.
    public let multipartMemoryThreshold: Int
    /// The default `multipartMemoryThreshold`: 10 MiB.
    public static let defaultMultipartMemoryThreshold = 10 << 20

    /// Creates a transport with its own session.
    ///
    /// - Parameters:
    ///   - configuration: the session's configuration, copied.
    ///   - maximumResponseSize: the most bytes of body kept in memory (see the property); 0 or more. A negative
    ///     value is raised to 0 (only empty bodies are kept), with a warning.
    ///   - redirectPolicy: which redirects are followed.
    ///   - multipartMemoryThreshold: the size up to which a multipart body of in-memory parts is built in memory; 0
    ///     or more. A negative value is raised to 0 (every multipart body streams), with a warning.
    public init(
        configuration: URLSessionConfiguration = .default,
        maximumResponseSize: Int = URLSessionTransport.defaultMaximumResponseSize,
        redirectPolicy: RedirectPolicy = .follow,
        multipartMemoryThreshold: Int = URLSessionTransport.defaultMultipartMemoryThreshold
    ) {
        self.maximumResponseSize = SettingClamp.clamp(
            maximumResponseSize, atLeast: 0, "URLSessionTransport maximumResponseSize", log: CoreLog.request)
        self.multipartMemoryThreshold = SettingClamp.clamp(
            multipartMemoryThreshold, atLeast: 0, "URLSessionTransport multipartMemoryThreshold", log: CoreLog.request)
        self.redirectPolicy = redirectPolicy
        let own = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        #if canImport(FoundationNetworking)
            // FoundationNetworking creates a task's protocol through the URL cache asynchronously, which lets a
            // cancellation report itself after the task completed and was forgotten: the process traps (Linux fact
            // 25; 4 runs in 5 of 1,000 cancelled loopback calls, none without the cache). A cache belongs in a
            // middleware (one that answers without calling `next`); without it each call also costs ~20 µs less.
            own.urlCache = nil
        #endif
        additionalHeaders = (own.httpAdditionalHeaders ?? [:])
            .map { (name: "\($0.key)", value: "\($0.value)") }
            .sorted { $0.name < $1.name }
        own.httpAdditionalHeaders = nil
        sessionIdleTimeout = own.timeoutIntervalForRequest
        marksRequestsForStubs = StubSessionSeam.includesStubbing(own.protocolClasses)
        // NAL enforces the idle timeout; Foundation's whole-second timer is only a backstop that never fires first.
        own.timeoutIntervalForRequest = Self.backstop(for: sessionIdleTimeout)
        streamConfiguration = (own.copy() as? URLSessionConfiguration) ?? own
        // NAL's idle timer enforces the idle timeout between chunks; libcurl's is only a backstop.
        streamConfiguration.timeoutIntervalForRequest = Self.backstop(for: RequestOptions.maximumTimeout)
        let delegateQueue = SerialDelegateQueue()
        tasks = SessionDelegate(delegateQueue: delegateQueue)
        session = URLSession(configuration: own, delegate: tasks, delegateQueue: delegateQueue)
    }

    deinit {
        // The session keeps its delegate alive until it is invalidated.
        session.finishTasksAndInvalidate()
    }

    /// Sends `request`, follows redirects, and collects the whole body, streams it, or writes a download's file.
    /// The URLs inside an error's `URLError` (its failing URL, its message, what it wraps) have their secrets
    /// redacted.
    public func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
        do {
            return try await perform(request, context: context)
        } catch {
            throw error.redactingURLs()
        }
    }

    private func perform(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
        var request = request
        try addAdditionalHeaders(to: &request)
        try OutgoingRequest.check(request)
        let idleTimeout = try context.idleTimeout(
            of: request, otherwise: sessionIdleTimeout,
            fallbackSetting: "URLSessionConfiguration timeoutIntervalForRequest")
        let started = (date: Date(), instant: ContinuousClock.now)
        // What goes on the wire: the caller's request, plus the stub server's markers for a stub session. The
        // response reports the caller's request, never the markers.
        var sent = request
        if marksRequestsForStubs {
            sent.setValue(StubSessionSeam.markerValue, forHTTPHeaderField: StubSessionSeam.markerHeader)
        }
        let (upload, temporaryFile) = try await uploadBody(for: context.kind, of: &sent)
        defer { if let temporaryFile { try? FileManager.default.removeItem(at: temporaryFile) } }
        if let type = sent.value(forHTTPHeaderField: "Content-Type") {
            request.setValue(type, forHTTPHeaderField: "Content-Type")
        }
        let progress = context.progressReporter(totalBytesToSend: upload?.length ?? temporaryFile.flatMap(Self.size))

        let limit = context.options.maximumResponseSize ?? maximumResponseSize
        // A call with its own timeout gets the backstop in place of it (Foundation would truncate 0.5 to 0); one
        // that keeps the session's uses the session's backstop, so the common case copies nothing.
        if idleTimeout != sessionIdleTimeout || sent.timeoutInterval != Self.defaultRequestTimeout {
            sent.timeoutInterval = Self.backstop(for: idleTimeout)
        }
        let exchange = Exchange(limit: limit, idleTimeout: idleTimeout, progress: progress)
        if context.streamsBody, !context.kind.isDownload {
            return try await stream(sent, as: request, upload: upload, idleTimeout: idleTimeout, started: started)
        }
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

    typealias Exchange = TransferExchange

    /// Moves the configuration's additional headers onto the request; a header the request has wins.
    private func addAdditionalHeaders(to request: inout URLRequest) throws(NALError) {
        for (name, value) in additionalHeaders where request.value(forHTTPHeaderField: name) == nil {
            try request.setValidatedHeader(value, forName: name)
        }
    }

    /// Foundation's own idle timer, in whole seconds, set past NAL's so that it never fires first. An invalid value
    /// is refused before any request is sent, so the backstop only needs to be finite.
    static func backstop(for idleTimeout: TimeInterval) -> TimeInterval {
        guard idleTimeout.isFinite, idleTimeout > 0 else { return defaultRequestTimeout }
        return min(idleTimeout, RequestOptions.maximumTimeout).rounded(.up) + 1
    }
}
