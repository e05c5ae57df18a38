import NALCore

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// The endpoints `nal-cli stubs serve` answers itself, as WireMock's `/__admin`: the journal for clients in other
/// processes, which cannot call `StubServer.requests`.
///
/// - `GET /__nal/requests`: the journal as JSON, oldest first: method, URL, headers and body, secrets redacted.
/// - `DELETE /__nal/requests`: empties the journal.
/// - `GET /__nal/health`: 200, for scripts that wait until the server is up.
enum AdminEndpoints {
    static let prefix = "/__nal/"

    /// The status, content type and body answering `request`.
    static func answer(_ request: ParsedRequest, server: StubServer) -> (Int, String, Data) {
        let path = String(request.target.prefix { $0 != "?" })
        switch (request.method, path) {
        case ("GET", "/__nal/requests"), ("HEAD", "/__nal/requests"):
            return (200, "application/json", journal(server.requests))
        case ("DELETE", "/__nal/requests"):
            server.clearJournal()
            return (204, "text/plain", Data())
        case ("GET", "/__nal/health"), ("HEAD", "/__nal/health"):
            return (200, "text/plain", Data("ok\n".utf8))
        case (_, "/__nal/requests"), (_, "/__nal/health"):
            return (405, "text/plain", Data("\(request.method) is not served on \(path)\n".utf8))
        default:
            let text = "no admin endpoint \(path): GET or DELETE /__nal/requests, GET /__nal/health\n"
            return (404, "text/plain", Data(text.utf8))
        }
    }

    /// The journal as a JSON array, secrets redacted as logs redact them.
    static func journal(_ requests: [RecordedRequest]) -> Data {
        let sensitive = SensitiveData.current
        let entries: [[String: Any]] = requests.map { request in
            var headers: [String: String] = [:]
            for (name, value) in request.headers { headers[name] = sensitive.displayValue(value, forHeader: name) }
            var entry: [String: Any] = [
                "method": request.method, "url": sensitive.redacting(url: request.url.absoluteString),
                "headers": headers, "bodyLength": request.bodyLength,
                "date": ISO8601DateFormatter().string(from: request.date),
            ]
            if let digest = request.bodySHA256 { entry["bodySHA256"] = digest }
            if !request.body.isEmpty {
                switch sensitive.redacting(body: request.body, contentType: request.header("Content-Type")) {
                case .text(let text): entry["body"] = text
                case .binary: entry["bodyBase64"] = request.body.base64EncodedString()
                // JSON that does not parse cannot be redacted reliably: left out, as logs leave it out.
                case .unparsableJSON: entry["bodyOmitted"] = "JSON that does not parse, which cannot be redacted"
                }
            }
            return entry
        }
        let data = try? JSONSerialization.data(
            withJSONObject: entries, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return (data ?? Data("[]".utf8)) + Data("\n".utf8)
    }
}
