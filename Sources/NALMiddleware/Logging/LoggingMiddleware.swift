public import NALCore
public import NALLogging

#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// Logs every request and response through NALLogging: subsystem `dev.nal`, categories `request` and `response`.
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

    /// Creates the middleware; by default headers and timing, at `info`.
    public init(options: Options = [.headers, .timing], maximumBodyBytes: Int = 1024, level: LogLevel = .info) {
        self.options = options
        self.maximumBodyBytes = SettingClamp.clamp(
            maximumBodyBytes, atLeast: 0, "LoggingMiddleware maximumBodyBytes", log: MiddlewareLog.middleware)
        self.level = level
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
        if logsRequest { MiddlewareLog.request.log(level: level, describe(request, context: context, sensitive)) }
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            if logsResponse {
                MiddlewareLog.response.log(
                    level: level, describe(response, took: ContinuousClock.now - start, sensitive))
                if let body = response.streamedBody { logEnd(of: body, for: request, sensitive) }
            }
            return response
        } catch {
            if logsResponse {
                MiddlewareLog.response.log(
                    level: level,
                    "\(request.httpMethod ?? "GET", privacy: .public) \(Self.url(request.url, sensitive), privacy: .public) failed: \(error, privacy: .public)"
                )
            }
            throw error
        }
    }

    /// A streamed body is logged twice: its head when it arrives, and its size and duration when it ends.
    private func logEnd(of body: StreamedBody, for request: URLRequest, _ sensitive: SensitiveData) {
        let level = level
        let described = "\(request.httpMethod ?? "GET") \(Self.url(request.url, sensitive))"
        body.whenEnded { ending in
            let outcome =
                ending.error.map { "failed after \(ending.byteCount) bytes: \($0)" } ?? "\(ending.byteCount) bytes"
            let milliseconds =
                Double(ending.duration.components.seconds) * 1000
                + Double(ending.duration.components.attoseconds) / 1e15
            MiddlewareLog.response.log(
                level: level,
                "\(described, privacy: .public) stream ended: \(outcome, privacy: .public) in \(String(format: "%.1f", milliseconds), privacy: .public) ms"
            )
        }
    }

    private func describe(_ request: URLRequest, context: TransportContext, _ sensitive: SensitiveData) -> LogMessage {
        var text = "→ \(request.httpMethod ?? "GET") \(Self.url(request.url, sensitive))"
        if context.attempt > 1 { text += " (attempt \(context.attempt))" }
        if options.contains(.headers) { text += Self.headers(request.allHTTPHeaderFields ?? [:], sensitive) }
        if options.contains(.bodies), let data = request.httpBody {
            text += "\n" + body(data, type: request.value(forHTTPHeaderField: "Content-Type"), sensitive)
        }
        if options.contains(.curl) {
            var upload: UploadSource?
            if case .upload(let source) = context.kind { upload = source }
            text += "\n" + request.curlCommand(upload: upload)
        }
        return "\(text, privacy: .public)"
    }

    private func describe(_ response: Response, took duration: Duration, _ sensitive: SensitiveData) -> LogMessage {
        var text = "← \(response.statusCode) \(response.request.httpMethod ?? "GET") "
        text += "\(Self.url(response.request.url, sensitive)), \(response.data.count) bytes"
        if options.contains(.timing) {
            text +=
                " in \(String(format: "%.1f", Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000)) ms"
        }
        if options.contains(.headers) {
            text += Self.headers(
                response.headers.dictionary, sensitive)
        }
        if options.contains(.bodies) {
            text += "\n" + body(response.data, type: response.headers["Content-Type"], sensitive)
        }
        return "\(text, privacy: .public)"
    }

    private static func url(_ url: URL?, _ sensitive: SensitiveData) -> String {
        sensitive.redacting(url: url?.absoluteString ?? "")
    }

    private static func headers(_ fields: [String: String], _ sensitive: SensitiveData) -> String {
        fields.sorted { $0.key.lowercased() < $1.key.lowercased() }
            .map { "\n  \($0.key): \(sensitive.displayValue($0.value, forHeader: $0.key))" }.joined()
    }

    /// A body as text, redacted as `curlCommand()` redacts it (JSON and form fields, also when untyped), cut to
    /// `maximumBodyBytes`.
    private func body(_ data: Data, type: String?, _ sensitive: SensitiveData) -> String {
        guard !data.isEmpty else { return "  (no body)" }
        var text: String
        switch sensitive.redacting(body: data, contentType: type) {
        case .text(let redacted): text = redacted
        case .unparsableJSON(let count): return "  (\(count) bytes of JSON that does not parse)"
        case .binary(let count): return "  (\(count) bytes of binary data)"
        }
        let limit = max(0, maximumBodyBytes)
        if text.utf8.count > limit {
            text = String(decoding: text.utf8.prefix(limit), as: UTF8.self) + "… (\(data.count) bytes)"
        }
        return "  " + text
    }
}
