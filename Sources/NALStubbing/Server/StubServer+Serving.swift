import NALCore
import NALLogging

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

extension StubServer {
    /// A journaled request and the stub's answer to it, if a stub matched.
    struct Lookup: Sendable {
        /// The request's number in the journal.
        let number: Int
        let recorded: RecordedRequest
        let answer: StubRegistry.Answer?
        /// Whether an ignore rule sends it to the network.
        let ignored: Bool
        /// The id of the stub that answers, when it answers every request alike: a listener keeps the bytes of its
        /// answer.
        var repeatingStubID: UInt64? = nil
    }

    /// Serves one request that reached one of this server's protocols. What needs no waiting (a ready response
    /// without delay, speed limit or file) is answered at once on the loading thread, since a hop to another thread
    /// costs more than the rest of the work; the rest runs in the returned task, under a watchdog that enforces a
    /// plain client's timeouts.
    func serve(
        _ original: URLRequest, configuration: URLSessionConfiguration?, to output: ProtocolOutput
    ) -> Task<Void, Never>? {
        var exchange = StubExchange(original, settings: SessionSettings(configuration))
        while true {
            let found = lookUp(exchange.request)
            guard let answer = found.answer, !found.ignored else {
                return later(exchange, output) { [exchange] in await self.unmatched(exchange, found, output) }
            }
            guard case .response(let response) = answer, response.isReadyAtOnce else {
                return later(exchange, output) { [exchange] in await self.serveLater(exchange, found, answer, output) }
            }
            switch exchange.outcome(of: response) {
            case .follow(let next):
                journal(response, for: found.number)
                exchange.request = next
            case .deliver(let http):
                journal(response, for: found.number)
                if let onDelivered = response.onDelivered {
                    output.whenFinished { [recorded = found.recorded] in onDelivered(recorded) }
                }
                deliverAtOnce(StubPlayback(response: response), http, output)
                return nil
            case .fail(let error):
                output.fail(error)
                return nil
            }
        }
    }

    /// Starts `work` in a task; for a plain client, under a watchdog that fails the request with
    /// `URLError(.timedOut)` when no response has started within its idle timeout, or the exchange outlasts the
    /// resource timeout.
    private func later(
        _ exchange: StubExchange, _ output: ProtocolOutput, _ work: @escaping @Sendable () async -> Void
    ) -> Task<Void, Never> {
        // Still on the session's work queue: the one place to look it up for the task's calls to hop to.
        output.findWorkQueue()
        guard !exchange.fromNAL else { return Task { await work() } }
        let watchdog = StubWatchdog(
            output, url: exchange.request.url, idle: exchange.settings.idleTimeout(of: exchange.request),
            total: exchange.settings.resourceTimeout)
        let task = Task {
            await work()
            watchdog.disarm()
        }
        watchdog.arm(cancelling: task)
        // Work that ended before the timers started leaves them to stop here.
        if !output.isOpen { watchdog.disarm() }
        return task
    }

    /// Journals a request and finds its stub, unless an ignore rule sends it to the network; claims a sequence's
    /// next response.
    private func lookUp(_ request: URLRequest) -> Lookup {
        lookUp(RecordedRequest(request))
    }

    /// Journals a recorded request and finds its stub, as `lookUp(_:)` does.
    func lookUp(_ recorded: RecordedRequest) -> Lookup {
        let journaled = recorded.journaled(bodyLimit: journaledBodyLimit)
        return state.withLock { Self.lookUp(recorded, journaled: journaled, in: &$0) }
    }

    /// `lookUp(_:)` inside the state's lock, for a caller that decides what to look up under the same lock;
    /// `journaled` is `recorded` as the journal keeps it, made before the lock.
    static func lookUp(_ recorded: RecordedRequest, journaled: RecordedRequest, in state: inout State) -> Lookup {
        let number = state.journal.append(journaled: journaled)
        if state.ignored.contains(where: { $0.matcher.matches(recorded) }) {
            return Lookup(number: number, recorded: recorded, answer: nil, ignored: true)
        }
        guard let (entry, answer) = state.registry.answer(recorded) else {
            return Lookup(number: number, recorded: recorded, answer: nil, ignored: false)
        }
        let repeating: UInt64?
        if case .repeating = entry.source { repeating = entry.id } else { repeating = nil }
        return Lookup(number: number, recorded: recorded, answer: answer, ignored: false, repeatingStubID: repeating)
    }

    /// Notes what the journal's request `number` was answered with, for `exportHAR()`.
    func journal(_ response: StubResponse, for number: Int) {
        state.withLock { $0.journal.noteAnswer(response, for: number) }
    }

    /// The waiting part of serving: handlers, delays, speed limits, files, and the redirects after them.
    private func serveLater(
        _ start: StubExchange, _ first: Lookup, _ firstAnswer: StubRegistry.Answer, _ output: ProtocolOutput
    ) async {
        var exchange = start
        var found = first
        var answer = firstAnswer
        while true {
            let response: StubResponse
            do {
                response = try await answer.response(for: exchange.request)
            } catch {
                output.fail(error)
                return
            }
            let playback = StubPlayback(response: response)
            do {
                try await playback.waitForStart()
            } catch {
                output.fail(error.sessionError(url: exchange.request.url))
                return
            }
            switch exchange.outcome(of: response) {
            case .follow(let next):
                journal(response, for: found.number)
                exchange.request = next
                found = lookUp(next)
                guard let nextAnswer = found.answer, !found.ignored else {
                    await unmatched(exchange, found, output)
                    return
                }
                answer = nextAnswer
            case .deliver(let http):
                journal(response, for: found.number)
                if let onDelivered = response.onDelivered {
                    output.whenFinished { [recorded = found.recorded] in onDelivered(recorded) }
                }
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
            output.fail(error.sessionError(url: http.url))
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
        do throws(StubPlayback.Failure) {
            if chunked {
                // NAL's transport holds back a producer that runs ahead of its delegate queue; this one runs in a
                // task, so it waits for room instead of being blocked.
                var chunks = 0
                try await playback.playBody(
                    chunkSize: StubPlayback.sessionChunkSize,
                    pacing: {
                        chunks += 1
                        if chunks % 32 == 0 { await output.drain() }
                        await StubSessionSeam.awaitDelegateCapacity()
                    }
                ) { chunk in output.load(chunk) }
                output.finish()
            } else {
                // One piece: a completion handler or data(for:) keeps only the last chunk a custom protocol loads.
                let body = try playback.wholeBody()
                if let bytesPerSecond = playback.response.bytesPerSecond {
                    let sent = playback.response.truncationPoint.map { min($0, body.count) } ?? body.count
                    let pause = Duration.nanoseconds(
                        Int64(sent).multipliedReportingOverflow(by: 1_000_000_000).partialValue / Int64(bytesPerSecond))
                    do { try await Task.sleep(for: pause) } catch { throw .cancelled }
                }
                try deliverWhole(body, of: playback, output)
            }
        } catch {
            output.fail(error.sessionError(url: http.url))
        }
    }

    private func unmatched(_ exchange: StubExchange, _ found: Lookup, _ output: ProtocolOutput) async {
        guard found.ignored || unmatchedPolicy == .passThrough else {
            let report = unmatchedReport(found.recorded)
            Self.log.error("\(report, privacy: .public)")
            var userInfo: [String: Any] = [NSLocalizedDescriptionKey: report]
            // The failing URL is printed with the error (URLError's description, a test's failure): redacted, as the
            // report is. The journal keeps the request as it was.
            if let url = exchange.request.url {
                userInfo[NSURLErrorFailingURLErrorKey] = SensitiveData.current.redacting(url: url)
            }
            output.fail(URLError(.resourceUnavailable, userInfo: userInfo))
            return
        }
        do {
            let started = Date()
            let clock = ContinuousClock.now
            let (data, http) = try await PassThrough.send(
                exchange.request, uploadFile: exchange.uploadFile, fromNAL: exchange.fromNAL)
            exchange.settings.storeCookies(of: http)
            await record(exchange.request, found, http, data, started: started, duration: .now - clock)
            output.receive(http)
            if !data.isEmpty { output.load(data) }
            output.finish()
        } catch {
            output.fail(error)
        }
    }

    /// Notes a request that went to the network, and its answer, in the journal and the cassette.
    func record(
        _ request: URLRequest, _ found: Lookup, _ http: HTTPURLResponse, _ data: Data, started: Date,
        duration: Duration
    ) async {
        let headers = HTTPHeaders(http).dictionary
        journal(StubResponse(status: http.statusCode, headers: headers, body: data), for: found.number)
        let recorded = found.recorded
        guard let recorder else { return }
        do {
            try await recorder.append(
                method: recorded.method, url: recorded.url, requestHeaders: recorded.headers,
                requestBody: recorded.body.isEmpty ? nil : recorded.body, status: http.statusCode,
                responseHeaders: headers, responseBody: data, started: started, duration: duration)
        } catch {
            Self.log.error("\(error.description, privacy: .public)")
        }
    }
}
