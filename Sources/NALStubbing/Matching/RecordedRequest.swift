public import Foundation
import NALCore
import NALSupport

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// A request as a stub server received it: the journal's entries, and what matchers look at.
public struct RecordedRequest: Sendable, Equatable, CustomStringConvertible {
    /// The method, upper case for the standard methods.
    public let method: String
    /// The full URL.
    public let url: URL
    /// The headers, names as sent.
    public let headers: [String: String]
    /// The body, including an upload's or a stream's; empty when there is none. In a journal, a body larger than
    /// its limit is not kept: this is empty and `bodySHA256` identifies it.
    public let body: Data
    /// The body's size in bytes, also when the journal did not keep it.
    public let bodyLength: Int
    /// The SHA-256 of a body the journal did not keep (in lower-case hex); `nil` when `body` is the whole body.
    public let bodySHA256: String?
    /// When it arrived.
    public let date: Date

    /// Creates a record.
    public init(method: String, url: URL, headers: [String: String] = [:], body: Data = Data(), date: Date = Date()) {
        self.method = HTTPMethod(rawValue: method).rawValue
        self.url = url
        self.headers = headers
        self.body = body
        bodyLength = body.count
        bodySHA256 = nil
        self.date = date
    }

    private init(_ request: RecordedRequest, droppingBodyWithDigest digest: String) {
        method = request.method
        url = request.url
        headers = request.headers
        body = Data()
        bodyLength = request.bodyLength
        bodySHA256 = digest
        date = request.date
    }

    /// This record as a journal keeps it: a body over `limit` bytes is replaced by its digest.
    func journaled(bodyLimit: Int) -> RecordedRequest {
        guard body.count > bodyLimit else { return self }
        return RecordedRequest(self, droppingBodyWithDigest: SHA256.hex(of: body))
    }

    /// Records `request`, reading its body stream if it has one.
    public init(_ request: URLRequest) {
        var body = request.httpBody ?? Data()
        if body.isEmpty, let stream = request.httpBodyStream { body = Self.read(stream) }
        self.init(
            method: request.httpMethod ?? "GET", url: request.url ?? URL(fileURLWithPath: "/"),
            headers: request.allHTTPHeaderFields ?? [:], body: body)
    }

    /// This record as a `URLRequest`: for handlers and the network, which take one.
    var urlRequest: URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if !body.isEmpty { request.httpBody = body }
        return request
    }

    /// The value of the header `name`, in any letter case.
    public func header(_ name: String) -> String? {
        headers.headerValue(name)
    }

    /// The query's items, unescaped; a key that appears twice keeps its first value, and a key without `=` has an
    /// empty value.
    public var queryItems: [String: String] {
        queryItemValues.mapValues { $0 ?? "" }
    }

    /// The query's items, unescaped, telling `?flag` (a `nil` value) from `?flag=` (an empty one); a key that appears
    /// twice keeps its first value.
    public var queryItemValues: [String: String?] {
        var items: [String: String?] = [:]
        for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        where items[item.name] == nil {
            items[item.name] = .some(item.value)
        }
        return items
    }

    /// The path as sent, percent-encoded, with a trailing slash kept: what path matchers compare. `/` when empty.
    public var path: String {
        let path = url.path(percentEncoded: true)
        return path.isEmpty ? "/" : path
    }

    /// `GET https://host/path`, with secrets redacted.
    public var description: String { "\(method) \(DisplayText.url(url))" }

    /// Reads a body stream to its end, without `streamError`, which traps on Linux.
    private static func read(_ stream: InputStream) -> Data {
        var data = Data()
        stream.open()
        defer { stream.close() }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            guard count > 0 else { break }
            data.append(buffer, count: count)
        }
        return data
    }
}
