public import Foundation
import NALCore

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
    /// The body, including an upload's or a stream's; empty when there is none.
    public let body: Data
    /// When it arrived.
    public let date: Date

    /// Creates a record.
    public init(method: String, url: URL, headers: [String: String] = [:], body: Data = Data(), date: Date = Date()) {
        self.method = HTTPMethod(rawValue: method).rawValue
        self.url = url
        self.headers = headers
        self.body = body
        self.date = date
    }

    /// Records `request`, reading its body stream if it has one.
    public init(_ request: URLRequest) {
        var body = request.httpBody ?? Data()
        if body.isEmpty, let stream = request.httpBodyStream { body = Self.read(stream) }
        self.init(
            method: request.httpMethod ?? "GET", url: request.url ?? URL(fileURLWithPath: "/"),
            headers: request.allHTTPHeaderFields ?? [:], body: body)
    }

    /// The value of the header `name`, in any letter case.
    public func header(_ name: String) -> String? {
        headers.headerValue(name)
    }

    /// The query's items, unescaped; a key that appears twice keeps its first value.
    public var queryItems: [String: String] {
        var items: [String: String] = [:]
        for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        where items[item.name] == nil {
            items[item.name] = item.value ?? ""
        }
        return items
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
