public import NALCore

#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// Adds the headers every request should carry, unless the request already has them: an endpoint's own headers
/// win.
///
/// - `User-Agent: nal/<version> (<os>; swift <version>)`
/// - `Accept-Language`: the process's preferred languages with decreasing quality, `en-GB;q=1.0, en;q=0.9`
/// - `Accept-Encoding: gzip, deflate` (what URLSession decodes on every platform)
public struct DefaultHeadersMiddleware: Middleware {
    /// The headers added when missing, by name.
    public let headers: [String: String]

    /// Creates the middleware with the default values, or your own.
    public init(
        userAgent: String = DefaultHeadersMiddleware.defaultUserAgent,
        acceptLanguage: String? = DefaultHeadersMiddleware.defaultAcceptLanguage,
        acceptEncoding: String? = "gzip, deflate"
    ) {
        var headers = ["User-Agent": userAgent]
        if let acceptLanguage { headers["Accept-Language"] = acceptLanguage }
        if let acceptEncoding { headers["Accept-Encoding"] = acceptEncoding }
        self.headers = headers
    }

    /// `nal/0.4.0 (Linux 6.1.0; swift 6.3)`.
    public static let defaultUserAgent: String = {
        let version = ProcessInfo.processInfo.operatingSystemVersion
        #if os(Linux)
            let system = "Linux"
        #elseif os(macOS)
            let system = "macOS"
        #elseif os(iOS)
            let system = "iOS"
        #else
            let system = "unknown"
        #endif
        return "nal/\(NALVersion.current) (\(system) \(version.majorVersion).\(version.minorVersion)."
            + "\(version.patchVersion); swift \(swiftVersion))"
    }()

    /// Up to six preferred languages of the process, with quality values from 1.0 down.
    public static let defaultAcceptLanguage: String = {
        let languages = Locale.preferredLanguages.prefix(6)
        let list = languages.isEmpty ? ["en"] : Array(languages)
        return list.enumerated().map { index, language in
            "\(language);q=\(String(format: "%.1f", 1.0 - Double(index) * 0.1))"
        }.joined(separator: ", ")
    }()

    private static var swiftVersion: String {
        #if swift(>=6.3)
            "6.3"
        #elseif swift(>=6.2)
            "6.2"
        #elseif swift(>=6.1)
            "6.1"
        #else
            "6.0"
        #endif
    }

    /// Adds the missing headers and sends the request on.
    public func intercept(
        _ request: URLRequest, context: TransportContext,
        next: @Sendable (URLRequest, TransportContext) async throws -> Response
    ) async throws -> Response {
        var request = request
        for (name, value) in headers where request.value(forHTTPHeaderField: name) == nil {
            try request.setValidatedHeader(value, forName: name)
        }
        return try await next(request, context)
    }
}
