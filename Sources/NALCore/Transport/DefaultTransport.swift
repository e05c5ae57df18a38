#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// The transport of a client that names none: what `Client()`, `Client(middleware:)` and a `StubTransport`'s
/// pass-through use.
///
/// - On Linux, one `CurlTransport` that the whole process shares, made on first use. It stores and sends cookies in
///   `HTTPCookieStorage.shared`, as URLSession's default configuration does, and a request without a `User-Agent`
///   gets FoundationNetworking's (the program's name and libcurl's version); its other settings are
///   `CurlTransport()`'s, which match `URLSessionTransport()`'s (limits, redirects, a 60 s idle timeout, proxies from
///   the environment). FoundationNetworking's URLSession can be stopped by a server (a chunked trailer, a
///   `Content-Length` of 2^63−1); libcurl driven directly cannot, and is faster.
/// - On Apple platforms, and on Linux when libcurl cannot be loaded (logged once, at notice), a new
///   `URLSessionTransport()` for each client.
///
/// Name a transport to choose another: `Client<GitHub>(transport: URLSessionTransport())` keeps URLSession on Linux,
/// which URLProtocol stubs (`StubServer`, Mocker-style tests) need. The shared transport refuses `shutdown()`, as
/// other clients depend on it: make a `CurlTransport` of your own to shut one down.
public enum DefaultTransport {
    /// The transport for one more client that names none: the process's shared `CurlTransport` on Linux, or a new
    /// `URLSessionTransport()`.
    public static func make() -> any Transport {
        #if os(Linux)
            if let shared = sharedCurlTransport { return shared }
        #endif
        return URLSessionTransport()
    }

    #if os(Linux)
        /// The process's CurlTransport for clients that name no transport, or `nil` when libcurl cannot be loaded.
        public static let sharedCurlTransport: CurlTransport? = {
            do {
                let transport = try CurlTransport(cookieStorage: HTTPCookieStorage.shared)
                transport.becomeProcessDefault()
                return transport
            } catch {
                CoreLog.request.notice(
                    "Clients that name no transport use URLSessionTransport: CurlTransport is unavailable (\(error))")
                return nil
            }
        }()
    #endif
}
