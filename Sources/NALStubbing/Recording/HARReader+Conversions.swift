import Foundation

extension HARDocument.Entry {
    /// A read entry written back: what a cassette keeps of entries it loaded when it records more.
    init(_ entry: HARReader.Entry) {
        let request = HARDocument.text(of: entry.requestBody ?? Data())
        let response = HARDocument.text(of: entry.responseBody)
        self.init(
            startedDateTime: entry.startedDateTime ?? HARDocument.timestamp(Date()), time: entry.time,
            request: HARDocument.Request(
                method: entry.method, url: entry.url.absoluteString,
                headers: entry.requestHeaders.map { HARDocument.NameValue(name: $0.name, value: $0.value) },
                queryString: HARDocument.queryString(of: entry.url),
                postData: entry.requestBody.map { _ in
                    HARDocument.PostData(
                        mimeType: entry.requestMimeType ?? "application/octet-stream", text: request.text,
                        encoding: request.encoding)
                },
                bodySize: entry.requestBody?.count ?? 0),
            response: HARDocument.Response(
                status: entry.status, statusText: entry.statusText,
                headers: entry.responseHeaders.map { HARDocument.NameValue(name: $0.name, value: $0.value) },
                content: HARDocument.Content(
                    size: entry.responseBody.count, mimeType: entry.responseMimeType, text: response.text,
                    encoding: response.encoding),
                redirectURL: "", bodySize: entry.responseBody.count),
            timings: HARDocument.Timings(wait: entry.time))
    }
}

extension HARReader.Entry {
    /// A written entry as replay reads it; `nil` when its URL does not parse.
    init?(_ entry: HARDocument.Entry) {
        guard let url = URL(string: entry.request.url) else { return nil }
        func decoded(_ text: String?, _ encoding: String?) -> Data {
            guard let text else { return Data() }
            return encoding == "base64" ? Data(base64Encoded: text) ?? Data() : Data(text.utf8)
        }
        self.init(
            startedDateTime: entry.startedDateTime, time: entry.time, method: entry.request.method, url: url,
            requestHeaders: entry.request.headers.map { ($0.name, $0.value) },
            requestBody: entry.request.postData.map { decoded($0.text, $0.encoding) },
            requestMimeType: entry.request.postData?.mimeType, status: entry.response.status,
            statusText: entry.response.statusText, responseHeaders: entry.response.headers.map { ($0.name, $0.value) },
            responseBody: decoded(entry.response.content.text, entry.response.content.encoding),
            responseMimeType: entry.response.content.mimeType)
    }
}
