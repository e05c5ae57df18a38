package import NALCore
import Testing

#if canImport(FoundationNetworking)
    import Foundation
    package import FoundationNetworking
#else
    package import Foundation
#endif

/// The transport the integration suites run against, so that one suite proves both transports: URLSession by
/// default, `CurlTransport` when `NAL_TEST_TRANSPORT=curl`, and `CurlTransport` with every call made from its
/// event loop's thread (`CurlTransport.executor`) when `NAL_TEST_TRANSPORT=curl-loop`. scripts/test.sh runs the
/// suites with each.
package enum TestTransports {
    /// `"curl"`, `"curl-loop"` or `"urlsession"`.
    package static let selected: String = {
        let value = ProcessInfo.processInfo.environment["NAL_TEST_TRANSPORT"]?.lowercased() ?? ""
        return ["curl", "curl-loop"].contains(value) ? value : "urlsession"
    }()

    /// Whether the suites run against `CurlTransport`, from any thread or from its loop's.
    package static var isCurl: Bool { selected != "urlsession" }

    /// A transport of the selected kind with these settings. `cookieStorage` is the URLSession configuration's
    /// storage, or CurlTransport's; `nil` keeps each transport's default (URLSession's shared storage, no cookies
    /// for CurlTransport). `idleTimeout` is the transport's own: CurlTransport's, or the configuration's
    /// `timeoutIntervalForRequest`.
    package static func make(
        redirectPolicy: RedirectPolicy = .follow,
        maximumResponseSize: Int = URLSessionTransport.defaultMaximumResponseSize,
        maximumConnectionsPerHost: Int = 6,
        cookieStorage: HTTPCookieStorage? = nil,
        idleTimeout: Double = 60
    ) -> any Transport {
        #if os(Linux)
            if isCurl {
                do {
                    let transport = try CurlTransport(
                        maximumResponseSize: maximumResponseSize, redirectPolicy: redirectPolicy,
                        idleTimeout: idleTimeout, maximumConnectionsPerHost: maximumConnectionsPerHost,
                        cookieStorage: cookieStorage)
                    return selected == "curl-loop" ? OnItsLoop(base: transport) : transport
                } catch {
                    // A suite that asked for curl must not quietly test URLSession instead.
                    return FailingTransport(error: error)
                }
            }
        #endif
        let configuration = URLSessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = maximumConnectionsPerHost
        configuration.timeoutIntervalForRequest = idleTimeout
        if let cookieStorage { configuration.httpCookieStorage = cookieStorage }
        return URLSessionTransport(
            configuration: configuration, maximumResponseSize: maximumResponseSize, redirectPolicy: redirectPolicy)
    }

    /// A cookie storage of the test's own: `HTTPCookieStorage.shared` is what every URLSession client of the test
    /// process uses by default, so a cookie stored there reaches other tests' requests.
    package static func privateCookieStorage() -> HTTPCookieStorage {
        HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "nal-tests-\(UUID().uuidString)")
    }

    #if os(Linux)
        /// CurlTransport, each call made from its event loop's thread: the transport's own work, the wait and the
        /// resumption all happen there, as for a caller that prefers `executor`.
        struct OnItsLoop: Transport {
            let base: CurlTransport

            func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
                try await withTaskExecutorPreference(base.executor) { () async throws(NALError) -> Response in
                    let response = try await base.send(request, context: context)
                    // The pass proves nothing unless the call really came back to the loop's thread.
                    let thread = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
                    if thread.trimmingCharacters(in: .whitespacesAndNewlines) != "nal.curl" {
                        Issue.record("a curl-loop call came back on \(thread), not on the transport's thread")
                    }
                    return response
                }
            }
        }
    #endif

    /// A transport whose every call fails with `error`.
    package struct FailingTransport: Transport {
        package let error: NALError

        package init(error: NALError) { self.error = error }

        package func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
            throw error
        }
    }
}
