public import NALCore
public import NALLogging

#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// Logs every request and response through NALLogging: subsystem `dev.nal`, categories `request` and `response`,
/// at `notice` by default, so they show without configuring anything.
///
/// Secrets are redacted by the rules of `SensitiveData.current`, as in `curlCommand()`: URL passwords, sensitive
/// headers, query values, form fields and JSON fields. When `level` is disabled for both categories, a request
/// costs one atomic load per category and no allocation.
public struct LoggingMiddleware: Middleware {
    /// What each entry shows besides the method, URL and status.
    public struct Options: OptionSet, Sendable {
        /// The option bits.
        public let rawValue: Int
        /// Creates options from their bits.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Request and response headers.
        public static let headers = Options(rawValue: 1 << 0)
        /// Request and response bodies, up to `maximumBodyBytes`.
        public static let bodies = Options(rawValue: 1 << 1)
        /// The request as a `curl` command.
        public static let curl = Options(rawValue: 1 << 2)
        /// How long the response took.
        public static let timing = Options(rawValue: 1 << 3)
    }

    /// What each entry shows.
    public var options: Options
    /// The most body bytes shown; 0 or more. The initialiser raises a negative value to 0, with a warning; one set
    /// later shows no body.
    public var maximumBodyBytes: Int
    /// The level entries are written at.
    public var level: LogLevel
    /// Turns each entry into its text; `defaultFormatter` unless you give your own.
    public var formatter: Formatter

    /// Creates the middleware; by default headers and timing, at `notice`, which NALLogging shows without any
    /// configuration (its default threshold is `notice`).
    ///
    /// - Parameters:
    ///   - options: what each entry shows besides the method, URL and status.
    ///   - maximumBodyBytes: the most body bytes shown, with `.bodies`.
    ///   - level: the level entries are written at. Below `notice` they show only once NALLogging is configured to
    ///     show them (`NAL_LOG=info`, or `LoggingSystem.bootstrap(configuration:)`).
    ///   - formatter: turns each entry into its text (Moya's `NetworkLoggerPlugin` formatter); secrets are redacted
    ///     before it sees them.
    public init(
        options: Options = [.headers, .timing], maximumBodyBytes: Int = 1024, level: LogLevel = .notice,
        formatter: @escaping Formatter = LoggingMiddleware.defaultFormatter
    ) {
        self.options = options
        self.maximumBodyBytes = SettingClamp.clamp(
            maximumBodyBytes, atLeast: 0, "LoggingMiddleware maximumBodyBytes", log: MiddlewareLog.middleware)
        self.level = level
        self.formatter = formatter
    }

    /// Logs the request, runs it, and logs the response or the error.
    public func intercept(
        _ request: URLRequest, context: TransportContext,
        next: @Sendable (URLRequest, TransportContext) async throws -> Response
    ) async throws -> Response {
        let logsRequest = MiddlewareLog.request.isEnabled(level)
        let logsResponse = MiddlewareLog.response.isEnabled(level)
        guard logsRequest || logsResponse else { return try await next(request, context) }
        let sensitive = SensitiveData.current
        if logsRequest { log(MiddlewareLog.request, entry(for: request, context: context, sensitive)) }
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            if logsResponse {
                log(
                    MiddlewareLog.response,
                    entry(for: response, context: context, took: ContinuousClock.now - start, sensitive))
                if let body = response.streamedBody { logEnd(of: body, for: request, context: context, sensitive) }
            }
            return response
        } catch {
            if logsResponse {
                var failure = Self.entry(.failure, for: request, context: context, sensitive)
                failure.error = "\(error)"
                log(MiddlewareLog.response, failure)
            }
            throw error
        }
    }

    private func log(_ logger: Logger, _ entry: Entry) {
        guard let text = formatter(entry) else { return }
        logger.log(level: level, "\(text, privacy: .public)")
    }

    /// A streamed body is logged twice: its head when it arrives, and its size and duration when it ends.
    private func logEnd(
        of body: StreamedBody, for request: URLRequest, context: TransportContext, _ sensitive: SensitiveData
    ) {
        let ended = Self.entry(.streamEnded, for: request, context: context, sensitive)
        body.whenEnded { [self] ending in
            var entry = ended
            entry.byteCount = ending.byteCount
            entry.duration = ending.duration
            entry.error = ending.error.map { "\($0)" }
            log(MiddlewareLog.response, entry)
        }
    }

    /// An entry with what every kind has: the target, method, redacted URL and attempt.
    private static func entry(
        _ kind: Entry.Kind, for request: URLRequest, context: TransportContext, _ sensitive: SensitiveData
    ) -> Entry {
        Entry(
            kind: kind, target: context.endpoint.originalTarget.loggableName, method: request.httpMethod ?? "GET",
            url: url(request.url, sensitive), attempt: context.attempt)
    }

    private func entry(for request: URLRequest, context: TransportContext, _ sensitive: SensitiveData) -> Entry {
        var entry = Self.entry(.request, for: request, context: context, sensitive)
        if options.contains(.headers) { entry.headers = Self.headers(request.allHTTPHeaderFields ?? [:], sensitive) }
        if options.contains(.bodies), let data = request.httpBody {
            entry.body = body(data, type: request.value(forHTTPHeaderField: "Content-Type"), sensitive)
        }
        if options.contains(.curl) {
            var upload: UploadSource?
            if case .upload(let source) = context.kind { upload = source }
            entry.curlCommand = request.curlCommand(upload: upload)
        }
        return entry
    }

    private func entry(
        for response: Response, context: TransportContext, took duration: Duration, _ sensitive: SensitiveData
    ) -> Entry {
        var entry = Self.entry(.response, for: response.request, context: context, sensitive)
        entry.statusCode = response.statusCode
        entry.byteCount = Int64(response.data.count)
        if options.contains(.timing) { entry.duration = duration }
        if options.contains(.headers) { entry.headers = Self.headers(response.headers.dictionary, sensitive) }
        if options.contains(.bodies) {
            entry.body = body(response.data, type: response.headers["Content-Type"], sensitive)
        }
        return entry
    }

    private static func url(_ url: URL?, _ sensitive: SensitiveData) -> String {
        sensitive.redacting(url: url?.absoluteString ?? "")
    }

    private static func headers(
        _ fields: [String: String], _ sensitive: SensitiveData
    ) -> [(name: String, value: String)] {
        fields.sorted { $0.key.lowercased() < $1.key.lowercased() }
            .map { (name: $0.key, value: sensitive.displayValue($0.value, forHeader: $0.key)) }
    }

    /// A body as text, redacted as `curlCommand()` redacts it (JSON and form fields, also when untyped), cut to
    /// `maximumBodyBytes`.
    private func body(_ data: Data, type: String?, _ sensitive: SensitiveData) -> String {
        guard !data.isEmpty else { return "(no body)" }
        var text: String
        switch sensitive.redacting(body: data, contentType: type) {
        case .text(let redacted): text = redacted
        case .unparsableJSON(let count): return "(\(count) bytes of JSON that does not parse)"
        case .binary(let count): return "(\(count) bytes of binary data)"
        }
        let limit = max(0, maximumBodyBytes)
        if text.utf8.count > limit {
            text = String(decoding: text.utf8.prefix(limit), as: UTF8.self) + "… (\(data.count) bytes)"
        }
        return text
    }
}
