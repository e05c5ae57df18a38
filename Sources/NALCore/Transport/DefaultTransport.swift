#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// The transport of a client that names none: what `Client()`, `Client(middleware:)` and a `StubTransport`'s
/// pass-through use.
///
/// - On Linux, one `CurlTransport` that the whole process shares, made on first use. So that code which named no
///   transport keeps what it had, it stores and sends cookies in `HTTPCookieStorage.shared` (URLSession's default
///   configuration does), a request without a `User-Agent` gets FoundationNetworking's (the program's name and
///   libcurl's version), and it opens up to `sharedConnectionsPerHost` connections to one host, since every such
///   client shares them (each had a URLSession of its own before). Its other settings are `CurlTransport()`'s, which
///   match `URLSessionTransport()`'s: the 64 MiB in-memory limit, redirects, a 60 s idle timeout, proxies from the
///   environment. FoundationNetworking's URLSession is stopped by some responses (a chunked trailer, a
///   `Content-Length` of 2^63−1) and is about three times slower per call.
/// - On Apple platforms, on Linux when libcurl cannot be loaded (logged once, at notice), and when the environment
///   variable `NAL_DEFAULT_TRANSPORT` is `urlsession` (read once), a new `URLSessionTransport()` for each client.
///
/// Name a transport to choose another: `Client<GitHub>(transport: URLSessionTransport())` keeps URLSession on Linux,
/// which URLProtocol stubs (`StubServer`, Mocker-style tests) need. The shared transport refuses `shutdown()` (it logs
/// a warning), as other clients depend on it: make a `CurlTransport` of your own to shut one down. A process forked
/// without `exec` has no event-loop thread: make its transports after the fork.
public enum DefaultTransport: Sendable {
    /// The transport for one more client that names none: the process's shared `CurlTransport` on Linux, or a new
    /// `URLSessionTransport()`.
    public static func make() -> any Transport {
        #if os(Linux)
            if let shared = sharedCurlTransport { return shared }
        #endif
        return URLSessionTransport()
    }

    /// The most connections the shared transport opens at once to one host. Over HTTP/1.1 each call, and each
    /// streamed body until it is read, holds one; more calls wait for a free one.
    public static let sharedConnectionsPerHost = 64

    #if os(Linux)
        /// The process's CurlTransport for clients that name no transport, or `nil` when libcurl cannot be loaded or
        /// `NAL_DEFAULT_TRANSPORT` is `urlsession`.
        public static let sharedCurlTransport: CurlTransport? = {
            if ProcessInfo.processInfo.environment["NAL_DEFAULT_TRANSPORT"]?.lowercased() == "urlsession" {
                return nil
            }
            do throws(NALError) {
                let transport = try CurlTransport(
                    maximumConnectionsPerHost: sharedConnectionsPerHost, cookieStorage: HTTPCookieStorage.shared)
                transport.becomeProcessDefault()
                return transport
            } catch {
                // The reason names the library's path and the loader's message: no secret.
                CoreLog.request.notice(
                    """
                    Clients that name no transport use URLSessionTransport: \
                    \(error.description, privacy: .public)
                    """)
                return nil
            }
        }()
    #endif
}
