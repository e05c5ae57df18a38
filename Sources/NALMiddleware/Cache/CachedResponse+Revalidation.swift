import NALCore

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

extension CachedResponse {
    /// Fields a 304 does not replace (RFC 9111 §3.2): the stored body's framing stays the stored body's.
    static let keptOnUpdate: Set<String> = ["content-length", "content-encoding", "content-range", "transfer-encoding"]

    /// This response with the fields of a 304 that confirmed it (§3.2, §4.3.4): each field the 304 has replaces the
    /// stored one of its name; its times are the revalidation's.
    func revalidated(by notModified: Response, requestTime: Date, responseTime: Date) -> CachedResponse {
        let incoming = notModified.headers.fields.filter {
            let name = $0.name.lowercased()
            return !CacheStorability.unstoredFields.contains(name) && !Self.keptOnUpdate.contains(name)
        }
        let replaced = Set(incoming.map { $0.name.lowercased() })
        return CachedResponse(
            statusCode: statusCode, fields: fields.filter { !replaced.contains($0.name.lowercased()) } + incoming,
            body: body, varying: varying, requestTime: requestTime, responseTime: responseTime)
    }

    /// Whether this stale response may stand in for an error (a failed call, a 5xx): `stale-if-error` (RFC 5861 §4)
    /// covers its staleness, and nothing forbids serving it stale.
    func allowsStale(afterError freshness: CacheFreshness, shared: Bool = false) -> Bool {
        let directives = self.directives
        guard !directives.has("must-revalidate"), !(shared && CacheRequest.sharedMustRevalidate(directives)),
            !directives.has("no-cache") || directives.hasValue("no-cache"),
            let window = directives.seconds("stale-if-error")
        else { return false }
        return freshness.staleness <= window
    }
}
