import NALSupport

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// The rules every request meets before any transport sends it, whoever built it (the Client, a middleware, a
/// redirect, a stored cookie): the same for URLSessionTransport and CurlTransport.
enum OutgoingRequest {
    /// What every request meets before it goes out, whoever built it: an `http` or `https` URL, and headers that
    /// are tokens, hold no control character, and include no framing header.
    static func check(_ request: URLRequest) throws(NALError) {
        guard let url = request.url else { throw .invalidRequest(.missingURL) }
        let scheme = url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else { throw .invalidRequest(.unsupportedScheme(scheme)) }
        // `http:///host/x` has no host for Foundation, and libcurl would read one from its path: a check of the host
        // (a redirect policy's, a hook's) would then pass for a call that goes elsewhere. URLSession refuses it too.
        guard let host = url.host, !host.isEmpty else { throw .invalidRequest(.invalidURL(url.absoluteString)) }
        if let method = request.httpMethod, !HTTPToken.isValid(method) { throw .invalidRequest(.invalidMethod(method)) }
        try HeaderChecks.checkAll(in: request)
    }
}
