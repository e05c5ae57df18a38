import NALCore
import NALLogging

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// The entries of a HAR file being recorded. Each addition rewrites the file atomically (a temporary file renamed
/// over it), so a crash mid-write never leaves a corrupt cassette, and additions from concurrent requests all land,
/// in the order they completed.
final class Cassette: Sendable {
    let file: URL?
    private let entries: Locked<[HARDocument.Entry]>

    init(file: URL?, entries: [HARDocument.Entry] = []) {
        self.file = file
        self.entries = Locked(entries)
    }

    /// The whole cassette as HAR 1.2.
    var document: HARDocument {
        HARDocument(log: HARDocument.Log(entries: entries.withLock { $0 }))
    }

    /// Adds `entry` and saves the file.
    func append(_ entry: HARDocument.Entry) throws(FixtureError) {
        try entries.withLock { entries throws(FixtureError) in
            entries.append(entry)
            guard let file else { return }
            do {
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try HARDocument(log: HARDocument.Log(entries: entries)).encoded().write(to: file, options: .atomic)
            } catch {
                throw FixtureError(file: file, message: "cannot write the cassette: \(error.localizedDescription)")
            }
        }
    }
}

extension HARDocument.Entry {
    /// An exchange as a cassette keeps it, redacted (see `HARRedactor`).
    static func recorded(
        method: String, url: URL, requestHeaders: [String: String], requestBody: Data?, status: Int,
        responseHeaders: [String: String], responseBody: Data?, started: Date, duration: Duration,
        revealingSecrets: Bool = false
    ) -> HARDocument.Entry {
        var redactor = HARRedactor()
        if !revealingSecrets { redactor.learnSecrets(url: url, headers: requestHeaders, body: requestBody) }
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
            return HARDocument.Content(
                size: data.count, mimeType: responseType ?? "", text: text, encoding: encoding)
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
