#if canImport(FoundationNetworking)
    import Foundation
#else
    public import Foundation
#endif

extension LoggingMiddleware {
    /// Turns an entry into the text that is logged, or `nil` to log nothing for it: Moya's
    /// `NetworkLoggerPlugin.Configuration.Formatter`. Where the text goes (standard error, a file, the system log) is
    /// NALLogging's sinks' business, not the formatter's.
    public typealias Formatter = @Sendable (Entry) -> String?

    /// NAL's own layout:
    ///
    ///     → GET https://api.example.com/users?page=2 (attempt 2)
    ///       Authorization: Bearer <redacted>
    ///     ← 200 GET https://api.example.com/users?page=2, 512 bytes in 12.3 ms
    ///       Content-Type: application/json
    public static let defaultFormatter: Formatter = { entry in
        var text: String
        switch entry.kind {
        case .request:
            text = "→ \(entry.method) \(entry.url)"
            if entry.attempt > 1 { text += " (attempt \(entry.attempt))" }
        case .response:
            text = "← \(entry.statusCode ?? 0) \(entry.method) \(entry.url), \(entry.byteCount ?? 0) bytes"
            if let duration = entry.duration { text += " in \(milliseconds(duration)) ms" }
        case .failure:
            return "\(entry.method) \(entry.url) failed: \(entry.error ?? "")"
        case .streamEnded:
            let outcome =
                entry.error.map { "failed after \(entry.byteCount ?? 0) bytes: \($0)" }
                ?? "\(entry.byteCount ?? 0) bytes"
            return
                "\(entry.method) \(entry.url) stream ended: \(outcome) in \(milliseconds(entry.duration ?? .zero)) ms"
        }
        for field in entry.headers { text += "\n  \(field.name): \(field.value)" }
        if let body = entry.body { text += "\n  " + body }
        if let curl = entry.curlCommand { text += "\n" + curl }
        return text
    }

    /// `12.3`: milliseconds with one decimal.
    static func milliseconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        return String(format: "%.1f", value)
    }
}
