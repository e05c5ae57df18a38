import NALCore

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// What makes two requests the same for replay: the method, the URL with its query in any order, and, when asked,
/// the body and chosen header values. `StubTransport` and `RecordingTransport` both find answers by it.
struct RequestKey: Hashable, Sendable {
    let method: String
    let url: NormalizedURL
    let body: Data?
    let headers: [String]

    init(method: String, url: NormalizedURL, body: Data?, headers: [String] = []) {
        self.method = HTTPMethod(rawValue: method).rawValue
        self.url = url
        self.body = body
        self.headers = headers
    }

    /// The key of a prepared request: its method, URL and body (an upload's bytes when given).
    init(_ request: URLRequest, uploadedData: Data?) {
        self.init(
            method: request.httpMethod ?? "GET", url: NormalizedURL(request.url ?? URL(fileURLWithPath: "/")),
            body: uploadedData ?? request.httpBody)
    }
}
