package import Foundation
package import NALCore
package import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The local httpbin that `scripts/test.sh` starts and announces in `NAL_HTTPBIN_URL`.
package enum HTTPBin {
    package static let url: URL? = ProcessInfo.processInfo.environment["NAL_HTTPBIN_URL"].flatMap(URL.init(string:))

    package static var isCI: Bool {
        let value = ProcessInfo.processInfo.environment["CI"]?.lowercased()
        return value == "true" || value == "1"
    }

    package static let skipReason: Comment = "NAL_HTTPBIN_URL is not set: run scripts/test.sh to start httpbin"

    /// An endpoint on httpbin.
    package static func endpoint(
        _ path: String, method: HTTPMethod = .get, requestType: RequestType = .plain,
        headers: [String: String]? = nil, validation: RequestValidation = .successCodes, timeout: TimeInterval? = nil
    ) -> TestEndpoint {
        TestEndpoint(
            baseURL: url ?? URL(fileURLWithPath: "/"), path: path, method: method, requestType: requestType,
            headers: headers, validation: validation, timeout: timeout)
    }

    /// The same httpbin under the name `localhost`: another origin for the browser and for NAL.
    package static var otherOrigin: String {
        guard let url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "" }
        components.host = "localhost"
        return components.string ?? ""
    }
}

/// The HTTPS server of `scripts/h2_server.py` (HTTP/2 when ALPN agrees), which `scripts/test.sh` starts and announces
/// in `NAL_H2_URL`, with its throwaway certificate authority in `NAL_H2_CA`.
package enum H2Server {
    package static let url: URL? = ProcessInfo.processInfo.environment["NAL_H2_URL"].flatMap(URL.init(string:))
    /// The same server on a port that offers HTTP/1.1 only (ALPN), over the same certificate.
    package static let http1URL: URL? = ProcessInfo.processInfo.environment["NAL_TLS_HTTP1_URL"].flatMap(
        URL.init(string:))
    /// The PEM file of the certificate the server presents, which no system trusts.
    package static let certificateAuthority: URL? = ProcessInfo.processInfo.environment["NAL_H2_CA"].map {
        URL(fileURLWithPath: $0)
    }

    package static let skipReason: Comment = "NAL_H2_URL is not set: run scripts/test.sh to start the HTTP/2 server"

    /// What the server answers on every path.
    package struct Answer: Decodable, Sendable {
        /// `"h2"` or `"http/1.1"`.
        package var protocol_: String
        package var path: String
        /// The connection's number, counted from 1 by the server.
        package var connection: Int
        /// The most streams the connection had open at once when this one was answered.
        package var peakStreams: Int
        /// The request's `Cookie` field.
        package var cookie: String?
        /// Whether the connection's TLS handshake resumed an earlier session.
        package var resumed: Bool
        /// On `/sent/<tag>`: how many bytes of `/big/<tag>` the server has sent so far.
        package var sent: Int?
        /// The request's method.
        package var method: String?
        /// Over HTTP/2: the request body's length and SHA-256 (hex), and the request's type and length fields.
        package var bodyLength: Int?
        package var bodySHA256: String?
        package var contentType: String?
        package var contentLength: String?

        enum CodingKeys: String, CodingKey {
            case protocol_ = "protocol"
            case path, connection, peakStreams, cookie, resumed, sent, bodyLength, bodySHA256, contentType
            case contentLength, method
        }
    }

    /// An endpoint on the server; `holdMilliseconds` delays the answer, and `http1Only` picks the port that offers
    /// HTTP/1.1 only.
    package static func endpoint(
        _ path: String, holdMilliseconds: Int = 0, query: Parameters = [:], http1Only: Bool = false
    ) -> TestEndpoint {
        var query = query
        if holdMilliseconds > 0 { query["ms"] = .int(holdMilliseconds) }
        return TestEndpoint(
            baseURL: (http1Only ? http1URL : url) ?? URL(fileURLWithPath: "/"), path: path,
            requestType: query.isEmpty ? .plain : .parameters(query, encoding: URLEncoding.queryString))
    }
}

/// The raw-socket fault server that `scripts/test.sh` starts (`scripts/fault_server.py`) and announces in
/// `NAL_FAULT_URL`.
package enum FaultServer {
    package static let url: URL? = ProcessInfo.processInfo.environment["NAL_FAULT_URL"].flatMap(URL.init(string:))

    package static let skipReason: Comment = "NAL_FAULT_URL is not set: run scripts/test.sh to start the fault server"

    /// The same server under the name `localhost`: another origin.
    package static var otherOrigin: String {
        guard let url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "" }
        components.host = "localhost"
        return components.string ?? ""
    }

    /// An endpoint on the fault server. `probe` tags the request in the server's journal.
    package static func endpoint(
        _ path: String, method: HTTPMethod = .get, query: Parameters = [:], probe: String? = nil,
        requestType: RequestType? = nil, headers: [String: String]? = nil,
        validation: RequestValidation = .successCodes,
        timeout: TimeInterval? = nil, totalTimeout: TimeInterval? = nil
    ) -> TestEndpoint {
        var query = query
        if let probe { query["probe"] = .string(probe) }
        let type: RequestType =
            requestType ?? (query.isEmpty ? .plain : .parameters(query, encoding: URLEncoding.queryString))
        return TestEndpoint(
            baseURL: url ?? URL(fileURLWithPath: "/"), path: path, method: method, requestType: type, headers: headers,
            validation: validation, timeout: timeout, totalTimeout: totalTimeout)
    }

    /// What `/echo` answers: the request as the server parsed it off the wire.
    package struct Echo: Decodable, Sendable {
        package var method: String
        package var path: String
        package var target: String
        package var query: [String: [String]]
        package var headers: [[String]]
        package var body: String
        package var bodyLength: Int

        /// The value of the first header named `name`, in any letter case.
        package func header(_ name: String) -> String? {
            headers.first { $0.first?.lowercased() == name.lowercased() }?.last
        }
    }

    package struct JournalEntry: Decodable, Sendable {
        package var method: String
        package var target: String
        package var headers: [[String]]
        package var bodyLength: Int
        /// When the server parsed the request, in seconds since the epoch.
        package var at: Double?

        /// The value of the first header named `name`, in any letter case.
        package func header(_ name: String) -> String? {
            headers.first { $0.first?.lowercased() == name.lowercased() }?.last
        }
    }

    /// The requests the server parsed whose target contains `probe`.
    package static func journal(probe: String) async throws -> [JournalEntry] {
        guard let url else { return [] }
        let journal = url.appendingPathComponent("_journal").appending(queryItems: [
            URLQueryItem(name: "contains", value: probe)
        ])
        let (data, _) = try await URLSession.shared.data(from: journal)
        return try JSONDecoder().decode([JournalEntry].self, from: data).filter { $0.target.contains(probe) }
    }

    package static func probe() -> String { UUID().uuidString }
}

/// Upper bounds for timing checks. Tests run in parallel on shared 2-core machines, where a saturated thread pool
/// delays a timer by a second or two; an upper bound checks that something ends long before its broken behaviour
/// would (a 30 s wait, an hour's Retry-After), not how fast it is. Speed is measured by `nal-bench`.
package enum Timing {
    /// What a loaded machine may add to an expected duration: 5 s (3 s was passed under the whole suite's load
    /// beside a build), 12 s under ThreadSanitizer (which slows every thread several times over), or
    /// `NAL_TIMING_SLACK_SECONDS`.
    package static let slack: Duration = {
        if let text = ProcessInfo.processInfo.environment["NAL_TIMING_SLACK_SECONDS"], let seconds = Int64(text) {
            return .seconds(seconds)
        }
        return underThreadSanitizer ? .seconds(12) : .seconds(5)
    }()

    /// Whether ThreadSanitizer's runtime is in this process (`swift test --sanitize=thread`).
    package static let underThreadSanitizer = dlsym(nil, "__tsan_init") != nil

    /// `expected` plus the slack of a loaded machine.
    package static func bound(_ expected: Duration) -> Duration { expected + slack }
}
