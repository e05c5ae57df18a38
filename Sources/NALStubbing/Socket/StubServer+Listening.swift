import NALCore
import NALLogging
import NALSupport

#if canImport(FoundationNetworking)
    public import Foundation
    import FoundationNetworking
#else
    public import Foundation
#endif

extension StubServer {
    /// Serves this server's stubs on a socket, for clients in any process (UI tests' apps, `CurlTransport`, curl).
    ///
    /// ```swift
    /// let listener = try await server.listen(port: 0)   // a free port on 127.0.0.1
    /// // listener.baseURL is http://127.0.0.1:PORT
    /// let github = try await server.listen(port: 0, as: URL(string: "https://api.github.com")!)
    /// await listener.stop()
    /// ```
    ///
    /// Every stub behaves as it does through URLProtocol: status, headers, bodies from memory, files and streams,
    /// delays, bandwidth, truncation (the connection closes part way through the body), network errors (it closes
    /// before answering), sequences, handlers, the journal and `waitForRequest`. A redirect stub is sent to the
    /// client, which follows it. An unmatched request gets a 404 whose body is the near-miss report.
    ///
    /// - Parameters:
    ///   - host: the address to listen on: `127.0.0.1` by default. Another address (`0.0.0.0`) lets other machines
    ///     reach the stubs: only on a network you trust.
    ///   - port: the port, or 0 for a free one (read it from `baseURL`).
    ///   - origin: match requests as if they had been sent to this origin (`https://api.github.com`), so that stubs
    ///     and fixtures written for it answer unchanged. Without it, requests match on their path and query: on
    ///     the listener's own URL first, then on each origin the stubs name, in order.
    /// - Throws: `StubListenerError` when the address cannot be listened on (a port in use), or `origin` is not an
    ///   origin.
    public func listen(
        host: String = "127.0.0.1", port: Int = 0, as origin: URL? = nil
    ) async throws(StubListenerError) -> StubListener {
        try listen(host: host, port: port, as: origin, options: ListenerOptions())
    }

    /// `listen(host:port:as:)` with the options tests and the command line set.
    package func listen(
        host: String, port: Int, as origin: URL?, options: ListenerOptions
    ) throws(StubListenerError) -> StubListener {
        let originText = try origin.map { url throws(StubListenerError) in try Self.originText(of: url) }
        let loops: [ListenerLoop]
        do {
            loops = try ListenerLoop.shared()
        } catch {
            throw .cannotListen(host: host, port: port, reason: "no descriptor for its event loops: \(error.reason)")
        }
        let socket = try ListeningSocket.open(host: host, port: port)
        // A listener on every address is reached at the loopback one from this machine.
        let dialled = socket.address == "0.0.0.0" ? "127.0.0.1" : socket.address == "::" ? "::1" : socket.address
        let shownHost = socket.isIPv6 ? "[\(dialled)]" : dialled
        guard let baseURL = URL(string: "http://\(shownHost):\(socket.port)") else {
            socket.close()
            throw .cannotListen(host: host, port: port, reason: "its address makes no URL")
        }
        let context = ListenerContext(
            base: "http://\(shownHost):\(socket.port)", origin: originText, admin: options.adminEndpoints)
        let core = ListenerCore(
            socket: socket, loops: loops, limits: options.limits, timeouts: options.timeouts
        ) {
            [self] request in
            start(request, context)
        }
        core.start()
        Self.log.info("stubs listening on \(baseURL.absoluteString, privacy: .public)")
        return StubListener(baseURL: baseURL, origin: origin, core: core)
    }

    /// `scheme://host[:port]` of an origin URL.
    private static func originText(of url: URL) throws(StubListenerError) -> String {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty, url.user == nil, url.password == nil,
            host.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || "0123456789.-:[]".unicodeScalars.contains($0))
            }),
            url.query == nil, url.fragment == nil,
            url.path.isEmpty || url.path == "/"
        else { throw .invalidOrigin(DisplayText.url(url)) }
        return RequestMatcher.origin(scheme: scheme, host: host.lowercased(), port: url.port)
    }

    // MARK: Answering

    /// What to do with one request a listener read: its answer at once, or the work that plays it. Runs on the
    /// connection's loop.
    private func start(_ parsed: ParsedRequest, _ context: ListenerContext) -> ListenerStep {
        if context.admin, parsed.target.hasPrefix(AdminEndpoints.prefix) {
            // In a task: the journal of a thousand large bodies takes seconds to write as JSON, and the loop serves
            // other connections meanwhile.
            return .later { connection in
                let (status, type, body) = AdminEndpoints.answer(parsed, server: self, added: context.addedStubs)
                ListenerPlayback.send(
                    status: status, headers: [("Content-Type", type)], body: body, to: parsed, connection)
            }
        }
        let knownOrigins = state.withLock { $0.registry.knownOrigins() }
        let origins = context.origin.map { [$0] } ?? [context.base] + knownOrigins
        guard let first = origins.first, let (url, pathAndQuery) = context.url(of: parsed.target, at: first) else {
            let refusal = RequestRefusal.badRequest("the request target is not a URL")
            return .now(bytes: ListenerResponseHead.refusal(refusal), keepAlive: false, delivered: nil)
        }
        // Matched as a RecordedRequest, made once: a URLRequest is made only for a handler or the network.
        let request = RecordedRequest(
            method: parsed.method, url: url, headers: parsed.recordedHeaders, body: parsed.body)
        let found = lookUp(request, at: pathAndQuery, trying: origins.dropFirst(), context)
        guard let answer = found.answer, !found.ignored else {
            guard found.ignored || unmatchedPolicy == .passThrough else {
                let report = unmatchedReport(found.recorded)
                // At info, not error: the 404's body carries the report, and a log written for every unmatched
                // request would block the listener on a standard error nobody reads (a test harness's pipe).
                Self.log.info("\(report, privacy: .public)")
                let whole = ListenerPlayback.whole(
                    status: 404, headers: [("Content-Type", "text/plain; charset=utf-8")],
                    body: Data((report + "\n").utf8), to: parsed)
                return .now(bytes: whole.bytes, keepAlive: whole.keepAlive, delivered: nil)
            }
            return .later { connection in
                await self.passThrough(found, parsed, context, connection)
            }
        }
        let playback: @Sendable (StubResponse) -> ListenerPlayback = { response in
            ListenerPlayback(response: response, request: parsed, context: context, knownOrigins: knownOrigins)
        }
        if case .response(let response) = answer,
            let whole = answerAtOnce(response, found, parsed, context, playback)
        {
            journal(response, for: found.number)
            let recorded = found.recorded
            let delivered = response.onDelivered.map { callback in { @Sendable in callback(recorded) } }
            return .now(bytes: whole.bytes, keepAlive: whole.keepAlive, delivered: delivered)
        }
        return .later { connection in
            let response: StubResponse
            do {
                response = try await answer.response(for: found.recorded.urlRequest)
            } catch {
                // A client on a socket cannot be handed a Swift error: the connection ends, as a network error's.
                Self.log.error("a stub handler failed: \(String(describing: error), privacy: .public)")
                connection.drop()
                return
            }
            self.journal(response, for: found.number)
            await playback(response).play(on: connection)
            response.onDelivered?(found.recorded)
        }
    }

    /// A stub's whole answer when it needs no waiting: the bytes kept from the last time, or made and kept when
    /// they will be the same next time.
    private func answerAtOnce(
        _ response: StubResponse, _ lookup: Lookup, _ parsed: ParsedRequest, _ context: ListenerContext,
        _ playback: (StubResponse) -> ListenerPlayback
    ) -> (bytes: [UInt8], keepAlive: Bool)? {
        let key = lookup.repeatingStubID.map {
            ListenerAnswerCache.Key(
                stub: $0, isHead: parsed.isHead, isHTTP10: parsed.isHTTP10, keepsAlive: parsed.keepsAlive)
        }
        if let key, let kept = context.answers.answer(for: key) { return kept }
        guard let whole = playback(response).atOnce() else { return nil }
        if let key, response.headers.headerKey("Location") == nil { context.answers.keep(whole, for: key) }
        return whole
    }

    /// Journals `request` and finds its stub: as sent to whichever of its own origin and `others` the best stub
    /// (by priority, then specificity, then the newest) matches, or as `request` when none matches. Chosen and
    /// claimed under one lock, so that a sequence's next answer cannot go to another request in between.
    private func lookUp(
        _ request: RecordedRequest, at pathAndQuery: String, trying others: ArraySlice<String>,
        _ context: ListenerContext
    ) -> Lookup {
        let candidates =
            [request]
            + others.compactMap { origin in
                context.url(pathAndQuery: pathAndQuery, at: origin).map {
                    RecordedRequest(method: request.method, url: $0, headers: request.headers, body: request.body)
                }
            }
        // Hashed outside the lock (a large body's digest), for each candidate the journal may keep.
        let journaled = candidates.map { $0.journaled(bodyLimit: journaledBodyLimit) }
        return state.withLock { state in
            var chosenIndex = 0
            var best: StubEntry?
            for (index, candidate) in (candidates.count > 1 ? candidates : []).enumerated() {
                guard let entry = state.registry.peek(candidate) else { continue }
                if let current = best, entry.rank <= current.rank { continue }
                best = entry
                chosenIndex = index
            }
            return Self.lookUp(candidates[chosenIndex], journaled: journaled[chosenIndex], in: &state)
        }
    }

    /// An unmatched request the server passes through: the origin's own answer.
    private func passThrough(
        _ found: Lookup, _ parsed: ParsedRequest, _ context: ListenerContext, _ connection: StubConnection
    ) async {
        guard context.origin != nil else {
            let text =
                "NAL stub listener: no stub matches, and without an origin (listen(as:)) there is nowhere to "
                + "pass the request through to\n"
            ListenerPlayback.send(
                status: 502, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Data(text.utf8),
                to: parsed, connection)
            return
        }
        do {
            let started = Date()
            let clock = ContinuousClock.now
            let request = found.recorded.urlRequest
            var outgoing = request
            for name in ListenerResponseHead.framingNames + ["Host"] {
                outgoing.setValue(nil, forHTTPHeaderField: name)
            }
            let (data, http) = try await PassThrough.send(outgoing, uploadFile: nil, fromNAL: false)
            await record(request, found, http, data, started: started, duration: .now - clock)
            let headers = HTTPHeaders(http).fields.filter {
                // The body comes decoded, whole: its coding and length are the listener's to state.
                !HTTPToken.equalsIgnoringASCIICase($0.name, "Content-Encoding")
            }
            ListenerPlayback.send(status: http.statusCode, headers: headers, body: data, to: parsed, connection)
        } catch {
            Self.log.error("passing a request through failed: \(String(describing: error), privacy: .public)")
            connection.drop()
        }
    }
}
