import Foundation
import NALCore
import NALSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HARDocument.Entry {
    /// An exchange as a cassette or an export keeps it, redacted (see `HARRedactor`) unless `revealingSecrets`.
    /// `knownSecrets` are values learned from earlier exchanges (cookies the server set), removed here too.
    static func recorded(
        method: String, url: URL, requestHeaders: [String: String], requestBody: Data?, status: Int,
        responseHeaders: [String: String], responseBody: Data?, started: Date, duration: Duration,
        revealingSecrets: Bool = false, knownSecrets: Set<String> = []
    ) -> HARDocument.Entry {
        var redactor = HARRedactor(knownSecrets: knownSecrets)
        if !revealingSecrets {
            redactor.learnSecrets(url: url, headers: requestHeaders, body: requestBody)
            redactor.learnSecrets(responseHeaders: responseHeaders)
        }
        func header(_ name: String, _ value: String) -> String {
            revealingSecrets ? value : redactor.header(name, value)
        }
        func body(_ data: Data, _ type: String?) -> Data {
            revealingSecrets ? data : redactor.body(data, contentType: type)
        }
        let requestType = requestHeaders.headerValue("Content-Type")
        let responseType = responseHeaders.headerValue("Content-Type")
        let shownURL = revealingSecrets ? url.absoluteString : redactor.url(url.absoluteString)
        let postData = requestBody.flatMap { data -> HARDocument.PostData? in
            guard !data.isEmpty else { return nil }
            let (text, encoding) = HARDocument.text(of: body(data, requestType))
            return HARDocument.PostData(
                mimeType: requestType ?? "application/octet-stream", text: text, encoding: encoding)
        }
        let content = responseBody.map { data -> HARDocument.Content in
            let (text, encoding) = HARDocument.text(of: body(data, responseType))
            return HARDocument.Content(size: data.count, mimeType: responseType ?? "", text: text, encoding: encoding)
        }
        let milliseconds = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        return HARDocument.Entry(
            startedDateTime: HARDocument.timestamp(started), time: milliseconds,
            request: HARDocument.Request(
                method: method, url: shownURL,
                headers: HARDocument.nameValues(requestHeaders).map {
                    HARDocument.NameValue(name: $0.name, value: header($0.name, $0.value))
                },
                queryString: URL(string: shownURL).map(HARDocument.queryString) ?? [],
                postData: postData, bodySize: requestBody?.count ?? 0),
            response: HARDocument.Response(
                status: status, statusText: HTTPURLResponse.localizedString(forStatusCode: status).capitalized,
                headers: HARDocument.nameValues(responseHeaders).map {
                    HARDocument.NameValue(name: $0.name, value: header($0.name, $0.value))
                },
                content: content ?? HARDocument.Content(size: 0, mimeType: "", text: nil, encoding: nil),
                redirectURL: responseHeaders.headerValue("Location").map { revealingSecrets ? $0 : redactor.url($0) }
                    ?? "",
                bodySize: responseBody?.count ?? -1),
            timings: HARDocument.Timings(wait: milliseconds))
    }
}
