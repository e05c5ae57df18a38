public import Foundation
public import NALCore
import NALLogging
import NALSupport

/// What a stub answers: a status, headers and a body, or a network error, with optional latency, bandwidth and
/// truncation. A value type: modifiers return a changed copy.
///
/// ```swift
/// StubResponse.json(["login": "octocat"])
/// StubResponse.file(bigFile).throttled(.threeG)
/// StubResponse(status: 503, headers: ["Retry-After": "1"]).delayed(by: .milliseconds(200))
/// StubResponse.networkError(.networkConnectionLost)
/// ```
public struct StubResponse: Sendable {
    /// Where a body comes from.
    public enum Body: Sendable {
        /// Bytes in memory.
        case data(Data)
        /// A file, read in chunks as it is served.
        case file(URL)
        /// Pieces sent one after another, `chunkInterval` apart: a streamed body (`stream(_:interval:)`).
        case chunks([Data])

        /// The bytes of a body held in memory (a stream's pieces joined); `nil` for a file.
        var inMemory: Data? {
            switch self {
            case .data(let data): data
            case .chunks(let chunks): chunks.reduce(into: Data()) { $0.append($1) }
            case .file: nil
            }
        }
    }

    /// The status code.
    public var status: Int
    /// The headers. `Content-Length` is set from the body when missing.
    public var headers: [String: String]
    /// The body.
    public var body: Body
    /// A network failure to answer with instead of a response.
    public var failure: URLError.Code?
    /// An error of your own to fail with instead of a response (`StubResponse.error(_:)`).
    public var error: (any Error)?
    /// Called with the request once this response has been delivered to it (Mocker's `completion`).
    public var onDelivered: (@Sendable (RecordedRequest) -> Void)?
    /// How long before the response starts.
    public var delay: Duration?
    /// The pause between the pieces of a streamed body (`.chunks`, or the events of a `text/event-stream` body);
    /// at least zero.
    public var chunkInterval: Duration? {
        didSet { if let interval = chunkInterval, interval < .zero { chunkInterval = .zero } }
    }
    /// The speed the body is delivered at, in bytes per second; at least 1 (a smaller value is raised to it).
    public var bytesPerSecond: Int? {
        didSet { if let speed = bytesPerSecond, speed < 1 { bytesPerSecond = 1 } }
    }
    /// Deliver this many body bytes, then fail with a lost connection; at least 0 (a negative value is raised to
    /// it).
    public var truncationPoint: Int? {
        didSet { if let point = truncationPoint, point < 0 { truncationPoint = 0 } }
    }

    /// Creates a response.
    public init(status: Int = 200, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = .data(body)
    }

    /// A JSON body with sorted keys and `Content-Type: application/json`, and `headers` (a `Content-Type` among them,
    /// in any letter case, replaces the default one). A value that cannot be encoded gives a 500 whose body says why,
    /// so that the test that wrote it fails visibly.
    public static func json(
        _ value: some Encodable, status: Int = 200, headers: [String: String] = [:]
    ) -> StubResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        do {
            return StubResponse(
                status: status, headers: merged(headers, over: "application/json"), body: try encoder.encode(value))
        } catch {
            return StubResponse(
                status: 500, headers: ["Content-Type": "text/plain; charset=utf-8"],
                body: Data("StubResponse.json could not encode \(type(of: value)): \(error)".utf8))
        }
    }

    /// A text body in UTF-8 with `Content-Type: text/plain; charset=utf-8`, and `headers` (a `Content-Type` among
    /// them, in any letter case, replaces the default one: `.string("<p>hi</p>", headers: ["Content-Type":
    /// "text/html"])`, Mocker's `dataType: .html`).
    public static func string(_ text: String, status: Int = 200, headers: [String: String] = [:]) -> StubResponse {
        StubResponse(status: status, headers: merged(headers, over: "text/plain; charset=utf-8"), body: Data(text.utf8))
    }

    /// `headers`, with `Content-Type: contentType` unless they name one in any letter case.
    private static func merged(_ headers: [String: String], over contentType: String) -> [String: String] {
        guard !headers.keys.contains(where: { $0.lowercased() == "content-type" }) else { return headers }
        return headers.merging(["Content-Type": contentType]) { given, _ in given }
    }

    /// The contents of a file, streamed in chunks as they are served; the file is never read whole, except for a
    /// client that can only take the body in one piece (a completion handler or `data(for:)` on Linux).
    public static func file(_ url: URL, status: Int = 200, headers: [String: String] = [:]) -> StubResponse {
        var response = StubResponse(status: status, headers: headers)
        response.body = .file(url)
        return response
    }

    /// A streamed body: each chunk is sent on its own, `interval` after the one before, with no `Content-Length`.
    /// A client streaming it (`Client.stream(_:)`) gets each chunk as it is sent; one that is not gets the whole body.
    /// `interval` is from 0 to a year; a value outside is brought to the nearer end, with a warning.
    ///
    /// ```swift
    /// stubs.stub(.export, with: .stream([Data("{\"n\":1}\n".utf8), Data("{\"n\":2}\n".utf8)], interval: .milliseconds(50)))
    /// ```
    public static func stream(
        _ chunks: [Data], interval: Duration = .zero, status: Int = 200,
        headers: [String: String] = ["Content-Type": "application/octet-stream"]
    ) -> StubResponse {
        chunked(chunks, interval: interval, status: status, headers: headers, setting: "StubResponse.stream interval")
    }

    /// `chunks` sent `interval` apart; `setting` names the interval in the warning for one out of range.
    private static func chunked(
        _ chunks: [Data], interval: Duration, status: Int, headers: [String: String], setting: String
    ) -> StubResponse {
        var response = StubResponse(status: status, headers: headers)
        response.body = .chunks(chunks)
        response.chunkInterval = SettingClamp.clamp(
            interval, to: .zero...SettingClamp.longestWait, setting, log: Self.log)
        return response
    }

    /// A `text/event-stream` of `events`, each sent on its own, `interval` after the one before: an LLM's chat
    /// stream, a live feed. Each event is written as `ServerSentEvent.encoded` says.
    ///
    /// ```swift
    /// stubs.stub(.chat("hi"), with: .events([ServerSentEvent(data: "Hel"), ServerSentEvent(data: "lo")], interval: .milliseconds(20)))
    /// ```
    public static func events(
        _ events: [ServerSentEvent], interval: Duration = .zero, status: Int = 200
    ) -> StubResponse {
        chunked(
            events.map { Data($0.encoded.utf8) }, interval: interval, status: status,
            headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-cache"],
            setting: "StubResponse.events interval")
    }

    /// A network failure with this code, as URLSession reports it.
    public static func networkError(_ code: URLError.Code) -> StubResponse {
        var response = StubResponse(status: 0)
        response.failure = code
        return response
    }

    /// A failure with an error of your own: the test's `Error`, an `NSError` of any domain, or a `URLError` with any
    /// code. A plain URLSession client of a `StubServer` gets the error itself; NAL's transports, which throw
    /// `NALError`, give it as the underlying error of `NALError.transport` (a stubbed `NALError` is thrown as it is
    /// by `StubTransport`).
    public static func error(_ error: any Error) -> StubResponse {
        var response = StubResponse(status: 0)
        response.error = error
        return response
    }

    /// A redirect to `url`. A `StubServer` follows it inside the stub layer for plain URLSession clients; NAL's
    /// transport follows it itself, by its `RedirectPolicy`.
    public static func redirect(to url: URL, status: Int = 302) -> StubResponse {
        StubResponse(status: status, headers: ["Location": url.absoluteString])
    }

    /// This response, calling `callback` with the request once it has been delivered.
    public func whenDelivered(_ callback: @escaping @Sendable (RecordedRequest) -> Void) -> StubResponse {
        var copy = self
        copy.onDelivered = callback
        return copy
    }

    /// Why this response cannot be delivered as it is, or `nil`: a status outside 100...599 on a response that is
    /// not an error. Such a status is refused, not clamped like the other settings: the stub is reported when it is
    /// registered and its call fails with `badServerResponse` (the socket listener answers 500), so a test that
    /// wrote 700 by mistake fails visibly instead of passing with a status it never asked for; `HTTPURLResponse`
    /// itself takes any number.
    var statusProblem: String? {
        guard failure == nil, error == nil, !(100...599).contains(status) else { return nil }
        return "has the status \(status), which is not an HTTP status (100 to 599)"
    }

    /// This response after a wait of `delay`: from 0 to a year; a value outside is brought to the nearer end, with a
    /// warning.
    public func delayed(by delay: Duration) -> StubResponse {
        var copy = self
        copy.delay = SettingClamp.clamp(
            delay, to: .zero...SettingClamp.longestWait, "StubResponse.delayed delay", log: Self.log)
        return copy
    }

    /// This response with its body delivered at `bytesPerSecond`, in chunks, so that progress shows. At least 1; a
    /// smaller value is raised to 1, with a warning.
    public func throttled(bytesPerSecond: Int) -> StubResponse {
        var copy = self
        copy.bytesPerSecond = SettingClamp.clamp(
            bytesPerSecond, atLeast: 1, "StubResponse.throttled bytesPerSecond", log: Self.log)
        return copy
    }

    /// This response with its body delivered at one of OHHTTPStubs' network speeds.
    public func throttled(_ speed: NetworkSpeed) -> StubResponse {
        throttled(bytesPerSecond: speed.bytesPerSecond)
    }

    /// This response cut after `bytes` bytes of body, then a lost connection. At least 0; a negative value is
    /// raised to 0, with a warning.
    public func truncated(after bytes: Int) -> StubResponse {
        var copy = self
        copy.truncationPoint = SettingClamp.clamp(bytes, atLeast: 0, "StubResponse.truncated after", log: Self.log)
        return copy
    }

    private static var log: Logger { Logger(nal: .stubbing) }

    /// Whether the response can be handed over at once: in memory, without a delay, a speed limit or a failure.
    var isReadyAtOnce: Bool {
        guard delay == nil, bytesPerSecond == nil, failure == nil, error == nil, case .data = body else { return false }
        return true
    }

    /// The `Location` of a redirect that can be followed.
    var redirectLocation: String? {
        guard [301, 302, 303, 307, 308].contains(status) else { return nil }
        return headers.headerValue("Location")
    }
}

/// Network speeds with OHHTTPStubs' names and values.
public enum NetworkSpeed: Sendable, CaseIterable {
    /// 56 kbps.
    case gprs
    /// 128 kbps.
    case edge
    /// 3,200 kbps.
    case threeG
    /// 7,200 kbps.
    case threeGPlus
    /// 12,000 kbps.
    case wifi

    /// The speed in bytes per second.
    public var bytesPerSecond: Int {
        switch self {
        case .gprs: 56_000 / 8
        case .edge: 128_000 / 8
        case .threeG: 3_200_000 / 8
        case .threeGPlus: 7_200_000 / 8
        case .wifi: 12_000_000 / 8
        }
    }
}
