import Foundation

extension SensitiveData {
    /// The proxy variables libcurl reads, under both transports on Linux (`http_proxy` in lowercase only).
    static let proxyVariables = ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]

    /// `text` with every proxy from the environment that carries credentials shown with the marker in place of
    /// them, wherever it appears as written. libcurl quotes a proxy it refuses as given, and such a value need not
    /// parse as a URL (`http://u:pa ss@proxy`, `u:p#ss@proxy:8080`), so `redacting(urlsIn:)` cannot find it.
    func redactingProxyCredentials(in text: String) -> String {
        var text = text
        for name in Self.proxyVariables {
            guard let raw = getenv(name) else { continue }
            let value = String(cString: raw)
            guard let at = value.lastIndex(of: "@"), text.contains(value) else { continue }
            let userStart = value.range(of: "://")?.upperBound ?? value.startIndex
            guard userStart <= at else { continue }
            text = text.replacingOccurrences(of: value, with: value[..<userStart] + Self.marker + value[at...])
        }
        return text
    }

    /// A message from elsewhere (libcurl's, Foundation's, another error's) as NAL shows it: proxies from the
    /// environment and URLs in it redacted.
    package func redacting(message: String) -> String {
        redacting(urlsIn: redactingProxyCredentials(in: message))
    }
}
