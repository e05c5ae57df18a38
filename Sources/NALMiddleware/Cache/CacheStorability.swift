import NALCore

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// What a private cache may store (RFC 9111 §3), and the entry it stores.
enum CacheStorability {
    /// Fields a cache does not keep: hop-by-hop ones (RFC 9110 §7.6.1), and `Set-Cookie`, which a stored response
    /// must not set again for another caller.
    static let unstoredFields: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
        "set-cookie", "set-cookie2", "cache-status",
    ]

    /// The entry to store for `response` to `request`, or `nil` when it may not be stored. The fields a `Connection`
    /// field names (hop-by-hop, RFC 9110 §7.6.1) and those a `no-cache="…"` names (RFC 9111 §5.2.2.4) are left out.
    static func entry(
        for response: Response, request: URLRequest, requestTime: Date, responseTime: Date, shared: Bool = false
    ) -> CachedResponse? {
        let status = response.statusCode
        // Final statuses only; a 206 holds a part, which this cache does not combine.
        guard (200...599).contains(status), status != 206, status != 304 else { return nil }
        let fields = response.headers.fields
        let cacheControl = fields.filter { $0.name.lowercased() == "cache-control" }.map(\.value)
        let directives = CacheDirectives(cacheControl)
        // A request's no-store never gets here: HTTPCache sends it without storing.
        guard !directives.has("no-store") else { return nil }
        if shared {
            // §3.5 and §5.2.2.7: a shared cache keeps no private response, and no answer to a request with
            // credentials unless the response allows it.
            guard !directives.has("private") || directives.hasValue("private") else { return nil }
            if request.value(forHTTPHeaderField: "Authorization") != nil {
                guard directives.has("public") || directives.has("s-maxage") || directives.has("must-revalidate")
                else { return nil }
            }
        }
        var seen = Set<String>()
        let varyNames = fields.filter { $0.name.lowercased() == "vary" }
            .flatMap { $0.value.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty && seen.insert($0).inserted }
        // Vary: * never matches a later request (§4.1).
        guard !varyNames.contains("*") else { return nil }
        let explicit =
            directives.has("max-age") || directives.has("public") || directives.has("private")
            || shared && directives.has("s-maxage")
            || fields.contains { $0.name.lowercased() == "expires" }
        guard explicit || CacheFreshness.heuristicallyCacheable.contains(status) else { return nil }
        let headers = CachedResponse.lowercasedNames(request.allHTTPHeaderFields ?? [:])
        // The transport adds stored cookies below the cache: a response that varies on cookies the cache never saw
        // could be one user's page served to another.
        guard !varyNames.contains("cookie") || headers["cookie"] != nil else { return nil }
        var varying = varyNames.map { name in (name: name, value: headers[name]) }
        // A response to a credential is served only to the same credential, as if it said Vary: Authorization:
        // after a logout or a change of user, a private cache must not hand one account's data to another.
        if let authorization = headers["authorization"], !varyNames.contains("authorization") {
            varying.append((name: "authorization", value: authorization))
        }
        let named = Set(
            (fields.filter { $0.name.lowercased() == "connection" }.map(\.value) + [directives.value("no-cache") ?? ""]
                + [shared ? directives.value("private") ?? "" : ""])
                .flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
        return CachedResponse(
            statusCode: status,
            fields: fields.filter {
                !unstoredFields.contains($0.name.lowercased()) && !named.contains($0.name.lowercased())
            },
            body: response.data, varying: varying, requestTime: requestTime, responseTime: responseTime)
    }
}
