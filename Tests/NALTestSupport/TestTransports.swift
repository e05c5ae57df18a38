import Foundation
public import NALCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The transport the integration suites run against, so that one suite proves both transports: URLSession by
/// default, `CurlTransport` when `NAL_TEST_TRANSPORT=curl` (scripts/test.sh runs the suites once with each).
public enum TestTransports {
    /// `"curl"` or `"urlsession"`.
    public static let selected: String = {
        let value = ProcessInfo.processInfo.environment["NAL_TEST_TRANSPORT"]?.lowercased() ?? ""
        return value == "curl" ? "curl" : "urlsession"
    }()

    /// A transport of the selected kind with these settings.
    public static func make(
        redirectPolicy: RedirectPolicy = .follow,
        maximumResponseSize: Int = URLSessionTransport.defaultMaximumResponseSize
    ) -> any Transport {
        #if os(Linux)
            if selected == "curl" {
                do {
                    return try CurlTransport(maximumResponseSize: maximumResponseSize, redirectPolicy: redirectPolicy)
                } catch {
                    // A suite that asked for curl must not quietly test URLSession instead.
                    return FailingTransport(error: error)
                }
            }
        #endif
        return URLSessionTransport(maximumResponseSize: maximumResponseSize, redirectPolicy: redirectPolicy)
    }

    /// A transport whose every call fails with `error`.
    struct FailingTransport: Transport {
        let error: NALError

        func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
            throw error
        }
    }
}
