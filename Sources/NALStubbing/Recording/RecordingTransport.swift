public import NALCore
import NALLogging
import NALSupport

#if canImport(FoundationNetworking)
    public import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// Records real traffic into a HAR cassette once, and replays it from then on: a `Transport`, so it works under a
/// `Client` and under middleware alike.
///
/// ```swift
/// let recorder = RecordingTransport(cassette: fixtures.appendingPathComponent("github.har"), mode: .once)
/// let client = Client<GitHub>(transport: recorder)
/// ```
///
/// - Everything is redacted before it is written, by the rules of `curlCommand()` (`SensitiveData`): sensitive
///   headers, query and body fields, URL passwords, any secret of the request that the response echoes back, and
///   the values of cookies that servers set. Replay compares requests redacted the same way, so a request whose
///   token was redacted still matches.
/// - Cookies: with the default wrapped transport, the recorder keeps the cookies itself (an in-memory store of its
///   own, sent as a `Cookie` header it can see and redact); URLSession's cookie store is off below it. With a
///   transport of your own, cookies that its session adds are invisible here; their values are still learned from
///   `Set-Cookie` and redacted wherever a server echoes them.
/// - Recording appends to the cassette at a cost that does not grow with its size, off the caller's thread; the
///   requests that run at once all land, in the order they completed.
/// - Before a request is sent for recording, the cassette is checked to be writable; if it is not, the call fails
///   at once and nothing is sent. If writing fails after the response arrived (a full disk), the response is
///   returned anyway and the failure is logged and kept in `recordingErrors`.
/// - An unmatched request in replay is an `NALError` that names the closest recorded entry; nothing aborts.
/// - Identical requests replay their recorded responses in order; the last one repeats.
/// - Downloads are passed to the wrapped transport and not recorded.
public final class RecordingTransport: Transport {
    private struct Replay: Sendable {
        var entries: [RequestKey: [HARReader.Entry]] = [:]
        var served: [RequestKey: Int] = [:]
        var all: [HARReader.Entry] = []

        mutating func add(_ entry: HARReader.Entry, key: RequestKey) {
            entries[key, default: []].append(entry)
            all.append(entry)
        }

        mutating func next(for key: RequestKey) -> HARReader.Entry? {
            guard let recorded = entries[key], !recorded.isEmpty else { return nil }
            let index = served[key, default: 0]
            served[key] = index + 1
            return recorded[min(index, recorded.count - 1)]
        }
    }

    /// The cassette file.
    public let cassette: URL
    /// What this transport does: `.once` has become `.replayOnly` or `.recordAll` by whether the cassette existed.
    public let mode: RecordMode
    /// What must be equal for a request to replay an entry.
    public let matching: RecordingMatch
    private let wrapped: any Transport
    private let store: Cassette
    private let replay: Locked<Replay>
    private let loadError: FixtureError?
    /// The recorder's own cookies, when it made the wrapped transport.
    private let cookies: HTTPCookieStorage?
    private let failures = Locked<[FixtureError]>([])
    private static var log: Logger { Logger(nal: .stubbing) }

    /// Creates a transport that records to, or replays from, `cassette`, sending what it records through
    /// `transport` (by default a `URLSessionTransport` whose cookies the recorder keeps itself). A cassette that
    /// cannot be read makes every call fail with an error that says why.
    public init(
        cassette: URL, mode: RecordMode, matching: RecordingMatch = .default,
        wrapping transport: (any Transport)? = nil
    ) {
        self.cassette = cassette
        self.matching = matching
        if let transport {
            wrapped = transport
            cookies = nil
        } else {
            let configuration = URLSessionConfiguration.ephemeral
            cookies = configuration.httpCookieStorage
            configuration.httpCookieStorage = nil
            configuration.httpShouldSetCookies = false
            configuration.httpCookieAcceptPolicy = .never
            wrapped = URLSessionTransport(configuration: configuration)
        }
        // An empty file is a cassette nothing was recorded into yet (a first run that failed): recorded again.
        let exists =
            ((try? FileManager.default.attributesOfItem(atPath: cassette.path)[.size]) as? NSNumber)
            .map { $0.int64Value > 0 } ?? FileManager.default.fileExists(atPath: cassette.path)
        let effective: RecordMode = mode == .once ? (exists ? .replayOnly : .recordAll) : mode
        self.mode = effective
        var table = Replay()
        var loaded: [HARReader.Entry] = []
        var failure: FixtureError?
        if exists && effective != .recordAll {
            do throws(FixtureError) {
                loaded = try HARReader.entries(of: try FixtureError.contents(of: cassette), file: cassette)
            } catch {
                failure = error
            }
        }
        for entry in loaded {
            table.add(entry, key: Self.key(entry, matching: matching))
        }
        loadError = failure
        replay = Locked(table)
        store = Cassette.shared(file: cassette, entries: loaded.map(HARDocument.Entry.init))
    }

    /// The cassette's entries as HAR 1.2: what was loaded and what was recorded since.
    public func exportHAR() -> Data {
        store.contents()
    }

    /// Recordings that could not be written, oldest first (at most the last 100); their responses were returned.
    public var recordingErrors: [FixtureError] { failures.withLock { $0 } }

    /// Replays the recorded answer to `request`, or records one from the wrapped transport, as the mode says.
    public func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
        if let loadError {
            throw .transport(
                URLError(
                    .cannotOpenFile,
                    userInfo: [NSLocalizedDescriptionKey: "the cassette cannot be used: \(loadError)"]))
        }
        if case .download = context.kind { return try await wrapped.send(request, context: context) }
        let body = Self.body(of: request, kind: context.kind)
        let key = Self.key(
            method: request.httpMethod ?? "GET", url: request.url, headers: request.allHTTPHeaderFields ?? [:],
            body: body, matching: matching)
        if mode != .recordAll, let entry = replay.withLock({ $0.next(for: key) }) {
            return try Self.response(replaying: entry, for: request, context: context)
        }
        guard mode != .replayOnly else { throw unmatched(request, key: key) }
        return try await record(request, body: body, key: key, context: context)
    }

    private func record(
        _ request: URLRequest, body: Data?, key: RequestKey, context: TransportContext
    ) async throws(NALError) -> Response {
        do {
            try store.checkWritable()
        } catch {
            throw .transport(
                URLError(
                    .cannotWriteToFile,
                    userInfo: [
                        NSLocalizedDescriptionKey: "the cassette cannot be written, so nothing was sent: \(error)"
                    ]))
        }
        var sent = request
        if let cookies, let url = request.url, sent.value(forHTTPHeaderField: "Cookie") == nil,
            let stored = cookies.cookies(for: url), !stored.isEmpty
        {
            for (name, value) in HTTPCookie.requestHeaderFields(with: stored) {
                try sent.setValidatedHeader(value, forName: name)
            }
        }
        let started = Date()
        let response = try await wrapped.send(sent, context: context)
        let responseHeaders = response.headers.dictionary
        if let cookies, let url = response.request.url {
            cookies.setCookies(
                HTTPCookie.cookies(withResponseHeaderFields: responseHeaders, for: url), for: url, mainDocumentURL: nil)
        }
        if let streamed = response.streamedBody {
            let sent = sent
            return relay(streamed, of: response) { [self] received, duration async in
                _ = await keep(
                    response, body: received, duration: duration, sent: sent, requestBody: body, key: key,
                    started: started)
            }
        }
        return await keep(
            response, body: response.data, duration: response.timing.duration, sent: sent, requestBody: body, key: key,
            started: started)
    }

    /// The most bytes of a streamed body a recording keeps; what comes after is passed on but not recorded.
    static let streamRecordingLimit = 64 << 20

    /// Passes a streamed body on to the caller as it arrives, and records what was read when it ends: the whole
    /// body, or as far as the caller read before it stopped (an endless event stream's first events). The caller
    /// sees the end once the exchange is in the cassette.
    private func relay(
        _ streamed: StreamedBody, of response: Response,
        record: @escaping @Sendable (Data, Duration) async -> Void
    ) -> Response {
        let (body, writer) = StreamedBody.makeStream()
        let clock = ContinuousClock()
        let start = clock.now
        let pump = Task {
            var received = Data()
            var chunks = ResponseStream(response: response, body: streamed).makeAsyncIterator()
            var failure: NALError?
            do throws(NALError) {
                while let chunk = try await chunks.next() {
                    if received.count < Self.streamRecordingLimit {
                        received.append(chunk.prefix(Self.streamRecordingLimit - received.count))
                    }
                    guard writer.append(chunk) else { break }
                    await writer.awaitCapacity()
                }
            } catch {
                failure = error
            }
            // Recorded before the caller sees the end, so that a stream read to its end is in the cassette.
            await record(received, response.timing.duration + (clock.now - start))
            if let failure { writer.finish(throwing: failure) } else { writer.finish() }
        }
        writer.onCancel { pump.cancel() }
        return Response(
            request: response.request, httpResponse: response.httpResponse, data: Data(), timing: response.timing,
            streamedBody: body)
    }

    /// Writes one exchange to the cassette, and keeps it for replay in `.recordNew`.
    @discardableResult
    private func keep(
        _ response: Response, body responseBody: Data, duration: Duration, sent: URLRequest, requestBody body: Data?,
        key: RequestKey, started: Date
    ) async -> Response {
        let responseHeaders = response.headers.dictionary
        do {
            try await store.append(
                method: sent.httpMethod ?? "GET", url: sent.url ?? URL(fileURLWithPath: "/"),
                finalURL: response.httpResponse.url, requestHeaders: sent.allHTTPHeaderFields ?? [:], requestBody: body,
                status: response.statusCode,
                responseHeaders: responseHeaders, responseBody: responseBody, started: started,
                duration: duration)
        } catch {
            Self.log.error("the response was returned but not recorded: \(error.description, privacy: .public)")
            failures.withLock { failures in
                failures.append(error)
                if failures.count > 100 { failures.removeFirst() }
            }
            return response
        }
        // Only `.recordNew` replays what it records; the other modes keep nothing in memory.
        guard mode == .recordNew else { return response }
        let recorded = HARReader.Entry(
            method: key.method, url: response.request.url ?? URL(fileURLWithPath: "/"), status: response.statusCode,
            responseHeaders: response.headers.map { ($0.name, $0.value) }, responseBody: responseBody,
            time: Self.milliseconds(duration))
        replay.withLock { $0.add(recorded, key: key) }
        return response
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    /// The recorded response as this request's answer.
    private static func response(
        replaying entry: HARReader.Entry, for request: URLRequest, context: TransportContext
    ) throws(NALError) -> Response {
        if let failure = entry.failure {
            throw .transport(URLError(failure, userInfo: request.url.map { [NSURLErrorFailingURLErrorKey: $0] } ?? [:]))
        }
        guard let url = request.url,
            let http = HTTPURLResponse(
                url: url, statusCode: entry.status, httpVersion: "HTTP/1.1",
                headerFields: HARReader.replayedHeaders(entry.responseHeaders))
        else { throw .transport(URLError(.badURL)) }
        let progress = context.progressReporter()
        progress?.expectReceiving(Int64(entry.responseBody.count), alreadyReceived: 0)
        progress?.received(entry.responseBody.count)
        progress?.complete()
        return Response(
            request: request, httpResponse: http, data: entry.responseBody,
            timing: ResponseTiming(start: Date(), duration: .milliseconds(Int64(entry.time.rounded()))))
        // `entry.time` was read as a finite number from 0 to `HARReader.maximumTime`, so it converts safely.
    }

    /// The error for a request the cassette does not hold, naming the closest entry and how it differs.
    private func unmatched(_ request: URLRequest, key: RequestKey) -> NALError {
        let entries = replay.withLock { $0.all }
        let redactor = HARRedactor()
        let shown = "\(key.method) \(redactor.url(request.url?.absoluteString ?? ""))"
        var message = "no recorded entry in \(cassette.lastPathComponent) matches \(shown)"
        let ranked = entries.map { entry -> (HARReader.Entry, Int, String) in
            let other = Self.key(entry, matching: matching)
            var differences: [String] = []
            if other.method != key.method { differences.append("the method") }
            if other.url.host != key.url.host || other.url.scheme != key.url.scheme || other.url.port != key.url.port {
                differences.append("the host")
            }
            if other.url.path != key.url.path { differences.append("the path") }
            if other.url.query != key.url.query { differences.append("the query") }
            if other.body != key.body { differences.append("the body") }
            if other.headers != key.headers { differences.append("the headers") }
            // "the headers" is plural on its own.
            let verb = differences.count == 1 && differences != ["the headers"] ? "differs" : "differ"
            return (entry, differences.count, "\(differences.joined(separator: " and ")) \(verb)")
        }
        if let (closest, _, differences) = ranked.min(by: { $0.1 < $1.1 }) {
            message += "; the closest is \(closest.method) \(closest.url.absoluteString) (\(differences))"
        } else {
            message += "; the cassette is empty"
        }
        Self.log.error("\(message, privacy: .public)")
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: message]
        if let url = request.url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        return .transport(URLError(.resourceUnavailable, userInfo: userInfo))
    }

    // MARK: Keys

    private static func body(of request: URLRequest, kind: RequestKind) -> Data? {
        switch kind {
        case .upload(.data(let data)): data
        case .upload(.file(let url)):
            (try? FileAccess.readableFileSize(url)).flatMap { $0 <= 1 << 20 ? try? Data(contentsOf: url) : nil }
        case .upload(.multipart), .download: nil
        case .data: request.httpBody
        }
    }

    /// The key of a live request: redacted as a cassette stores it, so that it meets its recorded self.
    private static func key(
        method: String, url: URL?, headers: [String: String], body: Data?, matching: RecordingMatch
    ) -> RequestKey {
        var redactor = HARRedactor()
        redactor.learnSecrets(url: url, headers: headers, body: body)
        let redactedURL = URL(string: redactor.url(url?.absoluteString ?? "")) ?? URL(fileURLWithPath: "/")
        let type = headers.headerValue("Content-Type")
        return RequestKey(
            method: HTTPMethod(rawValue: method).rawValue, url: NormalizedURL(redactedURL),
            body: matching.matchesBody ? body.map { redactor.body($0, contentType: type) } ?? Data() : nil,
            headers: matching.headers.map { name in
                headers.headerValue(name).map { redactor.header(name, $0) } ?? ""
            })
    }

    /// The key of a recorded entry, which is already redacted.
    private static func key(_ entry: HARReader.Entry, matching: RecordingMatch) -> RequestKey {
        RequestKey(
            method: entry.method, url: NormalizedURL(entry.url),
            body: matching.matchesBody ? entry.requestBody ?? Data() : nil,
            headers: matching.headers.map { name in
                entry.requestHeaders.first { HTTPToken.equalsIgnoringASCIICase($0.name, name) }?.value ?? ""
            })
    }
}
