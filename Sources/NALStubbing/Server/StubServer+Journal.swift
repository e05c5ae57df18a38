import NALCore

#if canImport(FoundationNetworking)
    public import Foundation
    package import FoundationNetworking
#else
    public import Foundation
#endif

extension StubServer {
    /// The requests received, oldest first (the last `journalCapacity`): method, URL, headers and body (upload
    /// bodies too, when NAL's transport sends them).
    public var requests: [RecordedRequest] { state.withLock { $0.journal.snapshot }.requests }

    /// The received requests that `matcher` accepts.
    public func requests(matching matcher: RequestMatcher) -> [RecordedRequest] {
        requests.filter(matcher.matches)
    }

    /// Forgets the requests received so far.
    public func clearJournal() {
        state.withLock { $0.journal.removeAll() }
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

    /// The journal as HAR 1.2, redacted like `curlCommand()` unless `revealingSecrets`: every request with the
    /// response it was given (a redirect followed in the stub layer is an entry of its own). A request that no stub
    /// answered is exported with status 0, as browsers export a failed request. `loadHAR` reads it back: values
    /// redacted here match any value there.
    public func exportHAR(revealingSecrets: Bool = false) -> Data {
        let snapshot = state.withLock { $0.journal.snapshot }
        let (journal, answers) = (snapshot.requests, snapshot.answers)
        let entries = zip(journal, answers).map { request, answer in
            var body: Data?
            if let data = answer?.body.inMemory { body = data }
            return HARDocument.Entry.recorded(
                method: request.method, url: request.url, requestHeaders: request.headers,
                requestBody: request.body.isEmpty ? nil : request.body, status: answer?.status ?? 0,
                responseHeaders: answer.map { StubPlayback(response: $0).headers } ?? [:], responseBody: body,
                started: request.date, duration: .zero, revealingSecrets: revealingSecrets)
        }
        return HARDocument(log: HARDocument.Log(entries: entries)).encoded()
    }

    /// The text of an unmatched request's error: the request, and the closest stubs with why each did not match.
    func unmatchedReport(_ request: RecordedRequest) -> String {
        let misses = state.withLock { $0.registry.nearMisses(request) }
        guard !misses.isEmpty else { return "No stub matches \(request): the server has no stubs." }
        return "No stub matches \(request). Closest stubs:\n"
            + misses.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n")
    }
}
