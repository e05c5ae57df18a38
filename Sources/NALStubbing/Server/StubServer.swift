import NALCore
import NALLogging

#if canImport(FoundationNetworking)
    public import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// Answers the requests of any `URLSession` made from `sessionConfiguration` with stubs: NAL's `URLSessionTransport`,
/// and any other client built on URLSession.
///
/// ```swift
/// let server = StubServer()
/// server.stub(.method(.get) && .path("/users/{id}"), response: .json(["login": "octocat"]))
/// let client = Client<GitHub>(transport: URLSessionTransport(configuration: server.sessionConfiguration))
/// ```
///
/// - **Isolation.** Each server serves only the sessions made from its own configuration, through a URLProtocol class
///   of its own, so servers used at once by parallel tests never see each other's stubs, even for the same URL.
///   Keep the server alive while its sessions run: once it is released, their requests fail instead of reaching the
///   network.
/// - **Precedence.** When several stubs match, the most specific wins (an exact URL over method, host and path, over
///   a path template, over a prefix; each further condition adds to it), then the most recently registered. Stubs on
///   an exact method, host and path are found through an index; the others are tried in order.
/// - **Sequences.** `stub(_:responses:)` answers with each response once, in order, and then stops matching.
/// - **Redirects** are followed inside the stub layer for plain URLSession clients (a URLProtocol cannot report them
///   on Linux), with the method, body and credential rules of `RedirectPolicy`; the response's URL is the last one.
///   NAL's transport gets the 3xx itself and follows it by its own policy.
/// - **Unmatched requests** fail with `URLError(.resourceUnavailable)` whose description lists the closest stubs and
///   why each did not match, or, with `.passThrough`, go to the network.
/// - **Linux.** A client that takes the body in one piece (a completion handler or `data(for:)`, which keep only the
///   last chunk a custom protocol loads) gets it in one piece; NAL's transport gets it in chunks, so that throttled
///   bodies show progress and files are never read whole.
public final class StubServer: Sendable {
    /// What happens to a request that no stub matches.
    public enum UnmatchedPolicy: Sendable {
        /// Fail it with `URLError(.resourceUnavailable)` and a report of the closest stubs. The default.
        case fail
        /// Send it to the network.
        case passThrough
    }

    private struct State: Sendable {
        var registry = StubRegistry()
        var journal: [RecordedRequest] = []
        /// What each journaled request was answered with, for `exportHAR()`; `nil` while unanswered or unmatched.
        var answers: [StubResponse?] = []
        var nextID: UInt64 = 0
    }

    /// A journaled request and the stub's answer to it, if a stub matched.
    private struct Lookup: Sendable {
        let index: Int
        let recorded: RecordedRequest
        let answer: StubRegistry.Answer?
    }

    /// What happens to a request that no stub matches.
    public let unmatchedPolicy: UnmatchedPolicy
    /// Where requests that passed through to the network are recorded, as HAR.
    private let recorder: Cassette?
    private let state = Locked(State())
    private let slot = Locked<ProtocolSlot?>(nil)
    private static var log: Logger { Logger(nal: .stubbing) }

    /// Creates a server with no stubs.
    ///
    /// - Parameters:
    ///   - unmatched: what happens to a request that no stub matches.
    ///   - cassette: with `.passThrough`, a HAR file that records, redacted, every request that went to the network
    ///     and its response; for apps that use URLSession directly (see `RecordingTransport` for the rest).
    public init(unmatched: UnmatchedPolicy = .fail, recordingTo cassette: URL? = nil) {
        unmatchedPolicy = unmatched
        recorder = cassette.map { Cassette(file: $0) }
        slot.withLock { $0 = ProtocolSlot(for: self) }
    }

    deinit {
        slot.withLock { $0 }?.release()
    }

    /// A server for Mocker's way of working: `StubServer.shared.install()`.
    public static let shared = StubServer()

    private var protocolClass: AnyClass {
        slot.withLock { $0?.protocolClass } ?? URLProtocol.self
    }

    /// A new ephemeral configuration whose sessions are answered by this server. Change it as you like before you
    /// make a session from it; keep this server's protocol first in `protocolClasses`.
    public var sessionConfiguration: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [protocolClass] + (configuration.protocolClasses ?? [])
        return configuration
    }

    /// Registers this server with `URLProtocol.registerClass`, as Mocker does.
    ///
    /// On Linux this reaches `URLSession.shared` only if it is called before anything uses `URLSession.shared`, which
    /// takes a snapshot of the registered protocols on first use, and it never reaches sessions made from a
    /// configuration: give those `sessionConfiguration`.
    public func install() {
        _ = URLProtocol.registerClass(protocolClass)
    }

    /// Undoes `install()`.
    public func uninstall() {
        URLProtocol.unregisterClass(protocolClass)
    }

    // MARK: Registering

    /// Answers requests that `matcher` accepts with `response`, every time.
    @discardableResult
    public func stub(_ matcher: RequestMatcher, response: StubResponse) -> StubHandle {
        register(matcher, .repeating(response))
    }

    /// Answers requests that `matcher` accepts with `responses`, each once, in order (`500, 500, 200`); then the stub
    /// stops matching and the request falls through to other stubs or the unmatched policy.
    @discardableResult
    public func stub(_ matcher: RequestMatcher, responses: [StubResponse]) -> StubHandle {
        register(matcher, .sequence(responses))
    }

    /// Answers requests that `matcher` accepts with whatever `handler` returns: echoes, templates, the MockURLProtocol
    /// recipe's request handler. An error it throws fails the request.
    @discardableResult
    public func stub(
        _ matcher: RequestMatcher, handler: @escaping @Sendable (URLRequest) async throws -> StubResponse
    ) -> StubHandle {
        register(matcher, .handler(handler))
    }

    func register(_ matcher: RequestMatcher, _ source: StubEntry.Source, origin: String? = nil) -> StubHandle {
        state.withLock { state in
            state.nextID += 1
            state.registry.add(StubEntry(id: state.nextID, matcher: matcher, source: source, origin: origin))
            return StubHandle(id: state.nextID)
        }
    }

    /// Removes a stub.
    public func remove(_ handle: StubHandle) {
        state.withLock { $0.registry.remove(handle.id) }
    }

    /// Removes every stub; the journal is kept.
    public func removeAll() {
        state.withLock { $0.registry.removeAll() }
    }

    // MARK: Verifying

    /// Every request received, oldest first: method, URL, headers and body (upload bodies too, when NAL's transport
    /// sends them).
    public var requests: [RecordedRequest] { state.withLock { $0.journal } }

    /// The received requests that `matcher` accepts.
    public func requests(matching matcher: RequestMatcher) -> [RecordedRequest] {
        requests.filter(matcher.matches)
    }

    /// Waits until a request that `matcher` accepts has arrived (checking every 5 ms), and returns the first one.
    public func waitForRequest(matching matcher: RequestMatcher, timeout: Duration) async throws -> RecordedRequest {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let found = requests.first(where: matcher.matches) { return found }
            guard ContinuousClock.now < deadline else {
                throw StubServerError.noRequest(matcher: matcher.description, timeout: timeout)
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Throws `StubServerError.unusedStubs`, naming them, if a stub never answered a request.
    public func verifyAllStubsUsed() throws {
        let unused = state.withLock { state in
            state.registry.all.values.filter { $0.served.load(ordering: .relaxed) == 0 }.sorted { $0.id < $1.id }
                .map(\.description)
        }
        if !unused.isEmpty { throw StubServerError.unusedStubs(unused) }
    }

    /// Which stub answers `request` and why each other stub does not, for `nal-cli stubs match`: the answering
    /// stub (or `nil`), then up to `limit` others with their reasons. Nothing is journaled or claimed.
    package func matchReport(for request: RecordedRequest, limit: Int = 10) -> (answer: String?, others: [String]) {
        state.withLock { state in
            let answer = state.registry.peek(request)
            return (answer?.description, state.registry.nearMisses(request, limit: limit, excluding: answer?.id))
        }
    }

    /// Whether a stub answers `request`, found as serving finds it but without journaling or playing it: the
    /// benchmark's view of the lookup. It claims a sequence's next response, as serving would.
    package func hasStub(for request: URLRequest) -> Bool {
        let recorded = RecordedRequest(request)
        return state.withLock { $0.registry.answer(recorded) } != nil
    }

    // MARK: Serving

    /// Serves one request that reached this server's protocol. What needs no waiting (a ready response without
    /// delay, speed limit or file) is answered at once on the loading thread, since a hop to another thread costs
    /// more than the rest of the work; the rest runs in the returned task.
    func serve(_ original: URLRequest, to output: ProtocolOutput) -> Task<Void, Never>? {
        var exchange = StubExchange(original)
        while true {
            let found = lookUp(exchange.request)
            guard let answer = found.answer else {
                let request = exchange.request
                return Task { await self.unmatched(request, found, output) }
            }
            guard case .response(let response) = answer, response.isReadyAtOnce else {
                return Task { [exchange] in await self.serveLater(exchange, found, answer, output) }
            }
            switch exchange.outcome(of: response) {
            case .follow(let next):
                exchange.request = next
            case .deliver(let http):
                noteAnswer(response, at: found.index)
                deliverAtOnce(StubPlayback(response: response), http, output)
                return nil
            case .fail(let error):
                output.fail(error)
                return nil
            }
        }
    }

    /// Journals a request and finds its stub; claims a sequence's next response.
    private func lookUp(_ request: URLRequest) -> Lookup {
        let recorded = RecordedRequest(request)
        return state.withLock { state in
            state.journal.append(recorded)
            state.answers.append(nil)
            return Lookup(
                index: state.journal.count - 1, recorded: recorded, answer: state.registry.answer(recorded)?.1)
        }
    }

    /// Notes what the journal's request at `index` was answered with, for `exportHAR()`.
    private func noteAnswer(_ response: StubResponse, at index: Int) {
        state.withLock { $0.answers[index] = response }
    }

    /// The journal as HAR 1.2, redacted like `curlCommand()` unless `revealingSecrets`: every request with the
    /// response it was given (an unmatched one has status 0). Open it in a browser's devtools.
    public func exportHAR(revealingSecrets: Bool = false) -> Data {
        let (journal, answers) = state.withLock { ($0.journal, $0.answers) }
        let entries = zip(journal, answers).map { request, answer in
            var body: Data?
            if case .data(let data)? = answer?.body { body = data }
            return HARDocument.Entry.recorded(
                method: request.method, url: request.url, requestHeaders: request.headers,
                requestBody: request.body.isEmpty ? nil : request.body, status: answer?.status ?? 0,
                responseHeaders: answer.map { StubPlayback(response: $0).headers } ?? [:], responseBody: body,
                started: request.date, duration: .zero, revealingSecrets: revealingSecrets)
        }
        return HARDocument(log: HARDocument.Log(entries: entries)).encoded()
    }

    /// The waiting part of serving: handlers, delays, speed limits, files, and the redirects after them.
    private func serveLater(
        _ start: StubExchange, _ first: Lookup, _ firstAnswer: StubRegistry.Answer, _ output: ProtocolOutput
    ) async {
        var exchange = start
        var index = first.index
        var answer = firstAnswer
        while true {
            let response: StubResponse
            switch answer {
            case .response(let stubbed):
                response = stubbed
            case .handler(let handler):
                do {
                    response = try await handler(exchange.request)
                } catch {
                    output.fail(
                        URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "the stub handler threw: \(error)"]))
                    return
                }
            }
            let playback = StubPlayback(response: response)
            do {
                try await playback.waitForStart()
            } catch {
                output.fail(Self.urlError(error, url: exchange.request.url))
                return
            }
            switch exchange.outcome(of: response) {
            case .follow(let next):
                exchange.request = next
                let found = lookUp(next)
                guard let nextAnswer = found.answer else {
                    await unmatched(next, found, output)
                    return
                }
                index = found.index
                answer = nextAnswer
            case .deliver(let http):
                noteAnswer(response, at: index)
                await deliver(playback, http, chunked: exchange.fromNAL, output)
                return
            case .fail(let error):
                output.fail(error)
                return
            }
        }
    }

    /// Hands over a body that is in memory and needs no pacing, in one piece.
    private func deliverAtOnce(_ playback: StubPlayback, _ http: HTTPURLResponse, _ output: ProtocolOutput) {
        output.receive(http)
        do {
            try deliverWhole(try playback.wholeBody(), of: playback, output)
        } catch {
            output.fail(Self.urlError(error, url: http.url))
        }
    }

    /// Loads `body` in one piece, cut at the truncation point, then finishes or fails as the stub says.
    private func deliverWhole(
        _ body: Data, of playback: StubPlayback, _ output: ProtocolOutput
    ) throws(StubPlayback.Failure) {
        let cut = playback.response.truncationPoint
        let loaded = cut.map { body.prefix($0) } ?? body
        if !loaded.isEmpty { output.load(loaded) }
        if let cut, body.count > cut { throw .network(.networkConnectionLost) }
        output.finish()
    }

    private func deliver(
        _ playback: StubPlayback, _ http: HTTPURLResponse, chunked: Bool, _ output: ProtocolOutput
    ) async {
        output.receive(http)
        do {
            if chunked {
                // NAL's transport holds back a producer that runs ahead of its delegate queue; this one runs in a
                // task, so it waits for room instead of being blocked.
                try await playback.playBody(
                    chunkSize: StubPlayback.sessionChunkSize, pacing: { await SerialDelegateQueue.awaitCapacity() }
                ) { chunk in output.load(chunk) }
                output.finish()
            } else {
                // One piece: a completion handler or data(for:) keeps only the last chunk a custom protocol loads.
                let body = try playback.wholeBody()
                if let bytesPerSecond = playback.response.bytesPerSecond {
                    let sent = playback.response.truncationPoint.map { min($0, body.count) } ?? body.count
                    try? await Task.sleep(for: .nanoseconds(Int64(sent) * 1_000_000_000 / Int64(bytesPerSecond)))
                }
                try deliverWhole(body, of: playback, output)
            }
        } catch {
            output.fail(Self.urlError(error, url: http.url))
        }
    }

    private func unmatched(_ request: URLRequest, _ found: Lookup, _ output: ProtocolOutput) async {
        switch unmatchedPolicy {
        case .passThrough:
            do {
                let started = Date()
                let clock = ContinuousClock.now
                let (data, response) = try await PassThrough.session.data(for: request)
                guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
                record(request, found, http, data, started: started, duration: .now - clock)
                output.receive(http)
                if !data.isEmpty { output.load(data) }
                output.finish()
            } catch {
                output.fail(error as? URLError ?? URLError(.unknown))
            }
        case .fail:
            let report = unmatchedReport(found.recorded)
            Self.log.error("\(report, privacy: .public)")
            var userInfo: [String: Any] = [NSLocalizedDescriptionKey: report]
            if let url = request.url { userInfo[NSURLErrorFailingURLErrorKey] = url }
            output.fail(URLError(.resourceUnavailable, userInfo: userInfo))
        }
    }

    /// Records a request that went to the network, and its answer, in the journal's answers and the cassette.
    private func record(
        _ request: URLRequest, _ found: Lookup, _ http: HTTPURLResponse, _ data: Data, started: Date,
        duration: Duration
    ) {
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields { headers["\(name)"] = "\(value)" }
        noteAnswer(StubResponse(status: http.statusCode, headers: headers, body: data), at: found.index)
        let recorded = found.recorded
        guard let recorder else { return }
        do {
            try recorder.append(
                .recorded(
                    method: recorded.method, url: recorded.url, requestHeaders: recorded.headers,
                    requestBody: recorded.body.isEmpty ? nil : recorded.body, status: http.statusCode,
                    responseHeaders: headers, responseBody: data, started: started, duration: duration))
        } catch {
            Self.log.error("\(error.description, privacy: .public)")
        }
    }

    /// The text of an unmatched request's error: the request, and the closest stubs with why each did not match.
    func unmatchedReport(_ request: RecordedRequest) -> String {
        let misses = state.withLock { $0.registry.nearMisses(request) }
        guard !misses.isEmpty else { return "No stub matches \(request): the server has no stubs." }
        return "No stub matches \(request). Closest stubs:\n"
            + misses.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n")
    }

    static func urlError(_ error: any Error, url: URL?) -> URLError {
        var userInfo: [String: Any] = [:]
        if let url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        switch error as? StubPlayback.Failure {
        case .network(let code)?: return URLError(code, userInfo: userInfo)
        case .cancelled?: return URLError(.cancelled, userInfo: userInfo)
        case .rejected(let error)?:
            userInfo[NSUnderlyingErrorKey] = error
            return URLError(.unknown, userInfo: userInfo)
        case .file(_, let underlying)?:
            userInfo[NSUnderlyingErrorKey] = underlying
            return URLError(.cannotOpenFile, userInfo: userInfo)
        case nil: return URLError(.unknown, userInfo: userInfo)
        }
    }
}

/// The network, for `.passThrough`: a plain session that no stub server intercepts.
enum PassThrough {
    static let session = URLSession(configuration: .ephemeral)
}
