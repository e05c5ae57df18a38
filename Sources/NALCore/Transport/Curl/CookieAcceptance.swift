#if os(Linux)
    import Foundation
    import FoundationNetworking

    /// Which cookies CurlTransport stores and sends. Foundation's storage keeps what it parses, so a server could
    /// otherwise set a cookie for a whole top-level domain, a `Secure` one over plain http, thousands at a time (each
    /// stored at a superlinear cost), or one whose value no header may carry, which would fail every later request to
    /// the hosts it matches.
    enum CookieAcceptance {
        /// The most cookies one response may set; the rest are ignored.
        static let perResponse = 50
        /// The most cookies stored for one URL; a response that would pass it stores none past it.
        static let perHost = 150
        /// The largest name and value together, in bytes (RFC 6265 §6.1's minimum).
        static let largestCookie = 4096

        /// The cookies of a response from `url` that may be stored, given `stored` cookies already match it.
        static func storable(_ cookies: [HTTPCookie], from url: URL, stored: Int) -> [HTTPCookie] {
            let host = url.host?.lowercased() ?? ""
            let secure = url.scheme?.lowercased() == "https"
            let room = max(0, perHost - stored)
            return Array(
                cookies.prefix(perResponse).filter { cookie in
                    isSendable(cookie) && (secure || !cookie.isSecure) && domainIsAllowed(cookie.domain, for: host)
                }.prefix(room))
        }

        /// Whether `cookie` can travel in a `Cookie` field: no control character or `;` in its name or value, and
        /// not over `largestCookie` bytes. A stored cookie that cannot is left out, not sent to fail the request.
        static func isSendable(_ cookie: HTTPCookie) -> Bool {
            guard !cookie.name.isEmpty, cookie.name.utf8.count + cookie.value.utf8.count <= largestCookie else {
                return false
            }
            let forbidden = { (byte: UInt8) in byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: ";") }
            return !cookie.name.utf8.contains(where: forbidden) && !cookie.value.utf8.contains(where: forbidden)
                && !cookie.name.utf8.contains { $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: " ") }
        }

        /// RFC 6265 §5.3: a cookie's domain must be the host or a domain the host is in, and never a single label
        /// (`.com`, `.localhost`: without the public suffix list, every top-level domain is refused). A host that is
        /// an IP address takes host cookies only.
        static func domainIsAllowed(_ domain: String, for host: String) -> Bool {
            let domain = domain.lowercased()
            guard domain.hasPrefix(".") else { return domain == host }
            let parent = String(domain.dropFirst())
            guard parent != host else { return true }
            let isAddress = host.contains(":") || host.split(separator: ".").allSatisfy { $0.allSatisfy(\.isNumber) }
            return !isAddress && parent.contains(".") && host.hasSuffix(domain)
        }
    }
#endif
