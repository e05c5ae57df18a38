import NALCore

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// The endpoints `nal-cli stubs serve` answers itself, as WireMock's `/__admin`: the journal and the stubs for
/// clients in other processes, which cannot call `StubServer.requests` or `stub(_:response:)`.
///
/// - `GET /__nal/requests`: the journal as JSON, oldest first: method, URL, headers and body, secrets redacted.
/// - `DELETE /__nal/requests`: empties the journal.
/// - `GET /__nal/stubs`: the stubs, in the order they are tried, as JSON: id, what they match, how often they answered.
/// - `POST /__nal/stubs`: adds the `.tail` file in the body as a stub (201, its id); a bad one is a 400 naming its
///   line. As among files, the longer URL pattern wins, then the stub added last.
/// - `DELETE /__nal/stubs`: removes the stubs added over HTTP.
/// - `POST /__nal/reset`: both deletes at once: the stubs added over HTTP and the journal.
/// - `GET /__nal/health`: 200, for scripts that wait until the server is up.
enum AdminEndpoints {
    static let prefix = "/__nal/"

    /// Where the listed endpoints are, for the 404 of any other.
    private static let listing =
        "GET or DELETE /__nal/requests, GET, POST or DELETE /__nal/stubs, POST /__nal/reset, GET /__nal/health"

    /// The status, content type and body answering `request`.
    static func answer(_ request: ParsedRequest, server: StubServer, added: AdminStubs) -> (Int, String, Data) {
        let path = String(request.target.prefix { $0 != "?" })
        switch (request.method, path) {
        case ("GET", "/__nal/requests"), ("HEAD", "/__nal/requests"):
            return (200, "application/json", journal(server.requests))
        case ("DELETE", "/__nal/requests"):
            server.clearJournal()
            return (204, "text/plain", Data())
        case ("GET", "/__nal/stubs"), ("HEAD", "/__nal/stubs"):
            return (200, "application/json", json(server.stubList().map { ["id": $0.id, "stub": $0.description] }))
        case ("POST", "/__nal/stubs"):
            return addStub(request.body, server: server, added: added)
        case ("DELETE", "/__nal/stubs"):
            let removed = removeAdded(server: server, added: added)
            return (200, "application/json", json(["removed": removed]))
        case ("POST", "/__nal/reset"):
            let removed = removeAdded(server: server, added: added)
            server.clearJournal()
            return (200, "application/json", json(["removed": removed]))
        case ("GET", "/__nal/health"), ("HEAD", "/__nal/health"):
            return (200, "text/plain", Data("ok\n".utf8))
        case (_, "/__nal/requests"), (_, "/__nal/health"), (_, "/__nal/stubs"), (_, "/__nal/reset"):
            return (405, "text/plain", Data("\(request.method) is not served on \(path)\n".utf8))
        default:
            return (404, "text/plain", Data("no admin endpoint \(path): \(listing)\n".utf8))
        }
    }

    /// Adds the `.tail` file in `body` as a stub.
    private static func addStub(_ body: Data, server: StubServer, added: AdminStubs) -> (Int, String, Data) {
        let tail: TailFile
        do {
            tail = try TailFile(body, file: URL(fileURLWithPath: "/__nal/stubs"), placeholders: [:])
        } catch {
            // The line is the body's: `/__nal/stubs:3: …`.
            return (400, "text/plain", Data("\(error.description)\n".utf8))
        }
        let handle = server.register(tail.matcher, .repeating(tail.response), origin: "POST /__nal/stubs")
        added.add(handle)
        return (201, "application/json", json(["id": Int(clamping: handle.id)]))
    }

    /// Removes the stubs added over HTTP; how many.
    private static func removeAdded(server: StubServer, added: AdminStubs) -> Int {
        let handles = added.takeAll()
        for handle in handles { server.remove(handle) }
        return handles.count
    }

    private static func json(_ object: Any) -> Data {
        let data = try? JSONSerialization.data(
            withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return (data ?? Data("null".utf8)) + Data("\n".utf8)
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
        return json(entries)
    }
}
