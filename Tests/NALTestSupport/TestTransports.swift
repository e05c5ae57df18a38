package import NALCore

#if canImport(FoundationNetworking)
    import Foundation
    package import FoundationNetworking
#else
    package import Foundation
#endif

/// The transport the integration suites run against, so that one suite proves both transports: URLSession by
/// default, `CurlTransport` when `NAL_TEST_TRANSPORT=curl` (scripts/test.sh runs the suites once with each).
package enum TestTransports {
    /// `"curl"` or `"urlsession"`.
    package static let selected: String = {
        let value = ProcessInfo.processInfo.environment["NAL_TEST_TRANSPORT"]?.lowercased() ?? ""
        return value == "curl" ? "curl" : "urlsession"
    }()

    /// A transport of the selected kind with these settings. `cookieStorage` is the URLSession configuration's
    /// storage, or CurlTransport's; `nil` keeps each transport's default (URLSession's shared storage, no cookies
    /// for CurlTransport).
    package static func make(
        redirectPolicy: RedirectPolicy = .follow,
        maximumResponseSize: Int = URLSessionTransport.defaultMaximumResponseSize,
        maximumConnectionsPerHost: Int = 6,
        cookieStorage: HTTPCookieStorage? = nil
    ) -> any Transport {
        #if os(Linux)
            if selected == "curl" {
                do {
                    return try CurlTransport(
                        maximumResponseSize: maximumResponseSize, redirectPolicy: redirectPolicy,
                        maximumConnectionsPerHost: maximumConnectionsPerHost, cookieStorage: cookieStorage)
                } catch {
                    // A suite that asked for curl must not quietly test URLSession instead.
                    return FailingTransport(error: error)
                }
            }
        #endif
        let configuration = URLSessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = maximumConnectionsPerHost
        if let cookieStorage { configuration.httpCookieStorage = cookieStorage }
        return URLSessionTransport(
            configuration: configuration, maximumResponseSize: maximumResponseSize, redirectPolicy: redirectPolicy)
    }

    /// A cookie storage of the test's own: `HTTPCookieStorage.shared` is what every URLSession client of the test
    /// process uses by default, so a cookie stored there reaches other tests' requests.
    package static func privateCookieStorage() -> HTTPCookieStorage {
        HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "nal-tests-\(UUID().uuidString)")
    }

    /// A transport whose every call fails with `error`.
    struct FailingTransport: Transport {
        let error: NALError

        func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
            throw error
        }
    }
}
