package import Foundation

/// The parts of HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/) that NAL reads and writes. Writing fills
/// every field the format requires; reading (`HARReader`) tolerates what real exports leave out.
package struct HARDocument: Codable, Sendable {
    var log: Log

    package init(log: Log) {
        self.log = log
    }

    package struct Log: Codable, Sendable {
        var version = "1.2"
        var creator = Creator()
        var entries: [Entry]

        package init(entries: [Entry]) {
            self.entries = entries
        }
    }

    struct Creator: Codable, Sendable {
        var name = "NAL"
        var version = "1"
    }

    package struct Entry: Codable, Sendable {
        var startedDateTime: String
        /// Milliseconds.
        var time: Double
        var request: Request
        var response: Response
        var cache = Cache()
        var timings: Timings
    }

    struct NameValue: Codable, Sendable, Equatable {
        var name: String
        var value: String
    }

    struct Request: Codable, Sendable {
        var method: String
        var url: String
        var httpVersion = "HTTP/1.1"
        var cookies: [NameValue] = []
        var headers: [NameValue]
        var queryString: [NameValue]
        var postData: PostData?
        var headersSize = -1
        var bodySize: Int
    }

    struct PostData: Codable, Sendable {
        var mimeType: String
        var text: String
        var encoding: String?
    }

    struct Response: Codable, Sendable {
        var status: Int
        var statusText: String
        var httpVersion = "HTTP/1.1"
        var cookies: [NameValue] = []
        var headers: [NameValue]
        var content: Content
        var redirectURL: String
        var headersSize = -1
        var bodySize: Int
    }

    struct Content: Codable, Sendable {
        var size: Int
        var mimeType: String
        var text: String?
        var encoding: String?
    }

    struct Cache: Codable, Sendable {}

    struct Timings: Codable, Sendable {
        var send: Double = 0
        var wait: Double
        var receive: Double = 0
    }
}

extension HARDocument {
    /// Pretty-printed, keys sorted: a stable file that diffs well.
    package func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data()
    }

    /// `2026-11-22T08:00:00.123Z`.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// A body as HAR carries it: UTF-8 text as is, anything else in base64.
    static func text(of body: Data) -> (text: String, encoding: String?) {
        if let text = String(data: body, encoding: .utf8) { return (text, nil) }
        return (body.base64EncodedString(), "base64")
    }

    static func nameValues(_ pairs: [String: String]) -> [NameValue] {
        pairs.map { NameValue(name: $0.key, value: $0.value) }.sorted { $0.name.lowercased() < $1.name.lowercased() }
    }

    static func queryString(of url: URL) -> [NameValue] {
        (URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map {
            NameValue(name: $0.name, value: $0.value ?? "")
        }
    }
}
