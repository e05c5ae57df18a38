package import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension SensitiveData {
    /// The marker as it stands in a URL that must still parse.
    package static let markerInURL = "%3Credacted%3E"

    /// `url` with its secrets (query and fragment values of sensitive names, user information) replaced by the
    /// marker, percent-encoded; only its scheme, host and path when that does not parse.
    package func redacting(url: URL) -> URL {
        let text = redacting(url: url.absoluteString)
        guard text != url.absoluteString else { return url }
        let encoded = text.replacingOccurrences(of: Self.marker, with: Self.markerInURL)
        if let redacted = URL(string: encoded) { return redacted }
        var components = URLComponents()
        components.scheme = url.scheme
        components.host = url.host
        components.path = url.path
        return components.url ?? URL(fileURLWithPath: "/")
    }

    /// `error` with the secrets of every URL it carries redacted: its failing URL and URL string, its message, and
    /// the same in each error it wraps (`NSUnderlyingErrorKey`), at most a few levels deep. What a caller prints or
    /// logs of an error holds no secret, whoever made it (FoundationNetworking keeps the request's URL in both keys).
    package func redacting(error: URLError, depth: Int = 0) -> URLError {
        URLError(error.code, userInfo: redacting(userInfo: error.userInfo, depth: depth))
    }

    private func redacting(userInfo: [String: Any], depth: Int) -> [String: Any] {
        var redacted: [String: Any] = [:]
        for (key, value) in userInfo {
            switch (key, value) {
            case (NSURLErrorFailingURLErrorKey, let url as URL):
                redacted[key] = redacting(url: url)
            case (_, let text as String):
                redacted[key] = redacting(message: text)
            case (NSUnderlyingErrorKey, let underlying as URLError) where depth < 4:
                redacted[key] = redacting(error: underlying, depth: depth + 1)
            case (NSUnderlyingErrorKey, let underlying as any Error) where !(type(of: underlying) is NSError.Type):
                // A Swift error of the caller's own (a stub's), kept as its type: it carries no URL of a request.
                redacted[key] = underlying
            case (NSUnderlyingErrorKey, let underlying as NSError) where depth < 4:
                redacted[key] = NSError(
                    domain: underlying.domain, code: underlying.code,
                    userInfo: redacting(userInfo: underlying.userInfo, depth: depth + 1))
            case (NSUnderlyingErrorKey, _):
                // Deeper than that, or of a kind that cannot be rebuilt: left out rather than shown.
                continue
            default:
                redacted[key] = value
            }
        }
        return redacted
    }
}

extension NALError {
    /// This error with the secrets of the URLs inside a transport's `URLError` redacted (see
    /// `SensitiveData.redacting(error:)`); any other error as it is, whose description redacts already.
    package func redactingURLs() -> NALError {
        switch self {
        case .transport(let urlError):
            return .transport(SensitiveData.current.redacting(error: urlError))
        case .tls(let failure):
            return .tls(
                TLSFailure(
                    check: failure.check, url: failure.url.map { SensitiveData.current.redacting(url: $0) },
                    detail: SensitiveData.current.redacting(message: failure.detail)))
        default:
            return self
        }
    }
}
