package import Foundation
import NALCore
import NALSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Reads HAR files as real exports write them: a UTF-8 byte-order mark, optional fields left out, `-1` sizes,
/// bodies in `text` or base64, HTTP/2 pseudo-headers. Broken JSON is an error with its line and column.
package struct HARReader {
    /// One request and its response, as recorded.
    package struct Entry: Sendable {
        var startedDateTime: String?
        var time: Double
        package var method: String
        package var url: URL
        var requestHeaders: [(name: String, value: String)]
        package var requestBody: Data?
        var requestMimeType: String?
        package var status: Int
        var statusText: String
        var responseHeaders: [(name: String, value: String)]
        package var responseBody: Data
        var responseMimeType: String
        /// The network error a failed request met (status 0 in a browser's export), replayed instead of a response.
        var failure: URLError.Code? = nil
    }

    /// The longest `time` read, in milliseconds (about 11.6 days); longer times are cut to it.
    static let maximumTime: Double = 1e9

    /// Headers that describe one connection or the body's framing and encoding. NAL and URLSession set their own;
    /// replaying a recorded `Content-Length` or `Content-Encoding` over a decoded body would corrupt it.
    static let connectionHeaders: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer",
        "trailers", "transfer-encoding", "upgrade", "content-length", "content-encoding", "host",
    ]

    /// The entries of the HAR file `file`, whose contents are `data`.
    package static func entries(of data: Data, file: URL) throws(FixtureError) -> [Entry] {
        if let problem = JSONSyntax.firstProblem(in: data) {
            throw FixtureError(
                file: file, line: problem.line, column: problem.column, message: "not valid JSON: \(problem.message)")
        }
        var json = data
        if json.starts(with: [0xEF, 0xBB, 0xBF]) { json = json.dropFirst(3) }
        guard let root = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any],
            let log = root["log"] as? [String: Any]
        else {
            throw FixtureError(file: file, line: 1, message: "not a HAR file: the top level has no \"log\" object")
        }
        guard let rawEntries = log["entries"] as? [Any] else {
            throw FixtureError(file: file, line: 1, message: "not a HAR file: \"log\" has no \"entries\" array")
        }
        var entries: [Entry] = []
        for (index, raw) in rawEntries.enumerated() {
            let path = "log.entries[\(index)]"
            func fail(_ message: String) -> FixtureError { FixtureError(file: file, message: "\(path): \(message)") }
            guard let entry = raw as? [String: Any], let request = entry["request"] as? [String: Any] else {
                throw fail("has no request object")
            }
            guard let urlText = request["url"] as? String, let url = URL(string: urlText), url.scheme != nil else {
                throw fail("request.url is missing or not an absolute URL")
            }
            let method = (request["method"] as? String).map { HTTPMethod(rawValue: $0).rawValue } ?? "GET"
            guard HTTPToken.isValid(method) else {
                throw fail("request.method is not an HTTP method (a token of letters, digits and !#$%&'*+-.^_`|~)")
            }
            let response = entry["response"] as? [String: Any] ?? [:]
            let status: Int
            if response.isEmpty {
                status = 0
            } else {
                guard let number = (response["status"] as? NSNumber)?.doubleValue, number.isFinite,
                    number == number.rounded(), (0...999).contains(number)
                else {
                    throw fail("response.status is not a whole number from 0 to 999")
                }
                status = Int(number)
            }
            guard status == 0 || (100...599).contains(status) else {
                throw fail("response.status \(status) is not an HTTP status (100 to 599, or 0 for a failed request)")
            }
            let content = response["content"] as? [String: Any] ?? [:]
            let body: Data
            do {
                body = try decodedText(content["text"] as? String, encoding: content["encoding"] as? String)
            } catch {
                throw fail("response.content.text is marked base64 but is not valid base64")
            }
            let postData = request["postData"] as? [String: Any]
            let requestBody: Data?
            do {
                requestBody = try postData.map {
                    try decodedText($0["text"] as? String, encoding: $0["encoding"] as? String)
                }
            } catch {
                throw fail("request.postData.text is marked base64 but is not valid base64")
            }
            let time = (entry["time"] as? NSNumber)?.doubleValue ?? 0
            entries.append(
                Entry(
                    startedDateTime: entry["startedDateTime"] as? String,
                    time: time.isFinite ? min(max(0, time), maximumTime) : 0, method: method, url: url,
                    requestHeaders: headers(request["headers"]), requestBody: requestBody,
                    requestMimeType: postData?["mimeType"] as? String,
                    status: status, statusText: response["statusText"] as? String ?? "",
                    responseHeaders: headers(response["headers"]), responseBody: body,
                    responseMimeType: content["mimeType"] as? String ?? "",
                    failure: status == 0 ? failure(named: (response["_error"] ?? entry["_error"]) as? String) : nil))
        }
        return entries
    }

    /// The network error of a failed browser request: Chrome's `_error` (`net::ERR_CONNECTION_REFUSED`), or a lost
    /// connection when the export does not say.
    static func failure(named name: String?) -> URLError.Code {
        let lowered = name?.lowercased() ?? ""
        let table: [(String, URLError.Code)] = [
            ("connection_refused", .cannotConnectToHost), ("name_not_resolved", .cannotFindHost),
            ("timed_out", .timedOut), ("internet_disconnected", .notConnectedToInternet), ("aborted", .cancelled),
            ("cert", .serverCertificateUntrusted), ("ssl", .secureConnectionFailed),
        ]
        return table.first { lowered.contains($0.0) }?.1 ?? .networkConnectionLost
    }

    private struct NotBase64: Error {}

    private static func decodedText(_ text: String?, encoding: String?) throws -> Data {
        guard let text else { return Data() }
        guard encoding?.lowercased() == "base64" else { return Data(text.utf8) }
        guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else { throw NotBase64() }
        return data
    }

    private static func headers(_ raw: Any?) -> [(name: String, value: String)] {
        (raw as? [Any] ?? []).compactMap { item in
            guard let pair = item as? [String: Any], let name = pair["name"] as? String else { return nil }
            return (name, pair["value"] as? String ?? "")
        }
    }

    /// The headers a replayed response keeps: no pseudo-headers (`:status`), no connection or framing headers, no
    /// names a header cannot have; repeated names joined with `, `.
    static func replayedHeaders(_ headers: [(name: String, value: String)]) -> [String: String] {
        var kept: [String: String] = [:]
        for (name, value) in headers
        where !name.hasPrefix(":") && !connectionHeaders.contains(name.lowercased()) && HTTPToken.isValid(name)
            && HTTPToken.problem(inValue: value) == nil
        {
            let key = kept.headerKey(name) ?? name
            kept[key] = kept[key].map { "\($0), \(value)" } ?? value
        }
        return kept
    }
}
