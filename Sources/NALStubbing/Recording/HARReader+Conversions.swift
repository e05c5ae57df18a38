import Foundation

extension HARDocument.Entry {
    /// A read entry written back: what a cassette keeps of entries it loaded when it records more.
    package init(_ entry: HARReader.Entry) {
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
    /// An entry recorded in this process, kept for replay.
    init(
        method: String, url: URL, status: Int, responseHeaders: [(name: String, value: String)], responseBody: Data,
        time: Double
    ) {
        self.init(
            startedDateTime: nil, time: max(0, min(time, HARReader.maximumTime)), method: method, url: url,
            requestHeaders: [], requestBody: nil, requestMimeType: nil, status: status, statusText: "",
            responseHeaders: responseHeaders, responseBody: responseBody, responseMimeType: "")
    }
}
