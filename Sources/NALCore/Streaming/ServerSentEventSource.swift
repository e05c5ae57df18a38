import Foundation

/// The events of an endpoint's event stream across reconnections: what `Client.serverSentEvents(_:reconnect:)`
/// returns. Each iteration connects afresh; leaving the loop or cancelling its task closes the connection.
public struct ServerSentEventSource<Service: RemoteService>: AsyncSequence, Sendable {
    /// What the sequence yields.
    public typealias Element = ServerSentEvent
    /// What the sequence throws: `NALError`.
    public typealias Failure = NALError

    let client: Client<Service>
    let target: Service
    let policy: ReconnectionPolicy
    let options: RequestOptions
    /// The ID to resume from on the first connection.
    var lastEventID = ""

    /// An iterator that connects when first asked; each loop has connections of its own.
    public func makeAsyncIterator() -> Iterator {
        Iterator(source: self)
    }

    /// Connects, parses, and reconnects when the connection drops.
    public struct Iterator: AsyncIteratorProtocol {
        let source: ServerSentEventSource
        var chunks: ResponseStream.Iterator?
        var url: URL?
        var parser: ServerSentEventParser
        var ready: [ServerSentEvent] = []
        var nextReady = 0
        /// Connections in a row that delivered no event.
        var failures = 0
        var deliveredSinceConnect = false
        var ended = false
        /// An event past the bound, thrown once the events that came before it have been delivered.
        var failure: NALError?

        init(source: ServerSentEventSource) {
            self.source = source
            parser = ServerSentEventParser(lastEventID: source.lastEventID)
        }

        /// The next element, or `nil` at the end, on the caller's actor.
        public mutating func next(
            isolation actor: isolated (any Actor)? = #isolation
        ) async throws(NALError) -> ServerSentEvent? {
            while true {
                if nextReady < ready.count {
                    defer { nextReady += 1 }
                    deliveredSinceConnect = true
                    return ready[nextReady]
                }
                // The events before one past the bound were delivered first; now its error.
                if let failure {
                    self.failure = nil
                    ended = true
                    throw failure
                }
                if ended { return nil }
                guard var current = chunks else {
                    try await connect(isolation: actor)
                    continue
                }
                let chunk: Data?
                do {
                    chunk = try await current.next(isolation: actor)
                } catch {
                    chunks = nil
                    try await reconnectAfter(error, isolation: actor)
                    continue
                }
                guard let chunk else {
                    chunks = nil
                    try await reconnectAfter(nil, isolation: actor)
                    continue
                }
                chunks = current
                ready = parser.parse(chunk)
                nextReady = 0
                if let kept = parser.eventsBeforeFirstDrop {
                    // The sequence ends at the dropped event: what follows it is never delivered.
                    ready.removeSubrange(kept...)
                    failure = .responseTooLarge(limit: parser.maximumEventSize, url: url)
                    chunks = nil
                }
            }
        }

        /// The next element, or `nil` at the end.
        public mutating func next() async throws(NALError) -> ServerSentEvent? {
            try await next(isolation: nil)
        }

        private mutating func connect(isolation actor: isolated (any Actor)?) async throws(NALError) {
            // As browsers send: no cache between the client and the server may answer an event stream.
            var headers: [(name: String, value: String)] = [
                ("Accept", "text/event-stream"), ("Cache-Control", "no-cache"),
            ]
            if !parser.lastEventID.isEmpty {
                // Reconnecting without the ID would make the server send everything again.
                guard Self.isSendable(parser.lastEventID) else {
                    ended = true
                    throw .invalidRequest(
                        .invalidHeaderValue(
                            name: "Last-Event-ID",
                            problem: "the stream's last event ID holds a control character, which no header can carry"
                        ))
                }
                headers.append(("Last-Event-ID", parser.lastEventID))
            }
            let stream: ResponseStream
            do {
                stream = try await source.client.stream(source.target, options: source.options, headers: headers)
            } catch {
                guard Self.isRecoverable(error) else {
                    ended = true
                    throw error
                }
                try await reconnectAfter(error, isolation: actor)
                return
            }
            url = stream.response.request.url
            if stream.response.statusCode == 204 {
                stream.body.stop(with: .cancelled)
                ended = true
                return
            }
            guard stream.response.statusCode == 200 else {
                ended = true
                throw .unacceptableStatusCode(
                    await ResponseStream.headWithBodyStart(of: stream.response.streaming(stream.body)))
            }
            do {
                try await EventStreamHead.check(stream)
            } catch {
                ended = true
                throw error
            }
            deliveredSinceConnect = false
            chunks = stream.makeAsyncIterator()
        }

        /// Waits before the next connection, or throws when the policy or the error says to stop.
        private mutating func reconnectAfter(
            _ error: NALError?, isolation actor: isolated (any Actor)?
        ) async throws(NALError) {
            parser.finish()
            if let error, !Self.isRecoverable(error) {
                ended = true
                throw error
            }
            failures = deliveredSinceConnect ? 1 : failures + 1
            deliveredSinceConnect = false
            if let limit = source.policy.maximumAttempts, failures > limit {
                ended = true
                if let error { throw error }
                return
            }
            let delay = source.policy.delay(afterFailures: failures, serverRetry: parser.reconnectionTime)
            CoreLog.requestOperation.debug(
                "event stream dropped; reconnecting in \(delay.description, privacy: .public)")
            do {
                try await Task.sleep(for: delay)
            } catch {
                ended = true
                throw .cancelled
            }
        }

        /// Network failures, idle timeouts and a body cut short are worth a reconnection; what the server or the
        /// caller decided is not.
        static func isRecoverable(_ error: NALError) -> Bool {
            switch error {
            case .transport: true
            case .timedOut(let failure): failure.limit == .idle
            default: false
            }
        }

        /// Whether an ID can travel in a header: no control character but HTAB.
        static func isSendable(_ id: String) -> Bool {
            !id.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }
        }
    }
}
