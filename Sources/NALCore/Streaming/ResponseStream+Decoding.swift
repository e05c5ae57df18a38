public import Foundation

extension ResponseStream {
    /// The body as lines of UTF-8 text (invalid bytes replaced), without their endings (LF, CRLF or CR). A last line
    /// without an ending is delivered too. A line longer than `maximumLineLength` bytes ends the stream with
    /// `NALError.responseTooLarge`.
    public var lines: LineSequence { LineSequence(stream: self, maximumLineLength: Self.defaultMaximumLineLength) }

    /// The body as lines, with a bound on a line's length in bytes.
    ///
    /// - Parameter maximumLineLength: the longest line, in bytes; at least 1. A smaller value is raised to 1, with a
    ///   warning.
    public func lines(maximumLineLength: Int) -> LineSequence {
        LineSequence(
            stream: self,
            maximumLineLength: SettingClamp.clamp(
                maximumLineLength, atLeast: 1, "ResponseStream.lines maximumLineLength", log: CoreLog.request))
    }

    /// The default bound on one line: 8 MiB.
    public static let defaultMaximumLineLength = 8 << 20

    /// The body as server-sent events (see `ServerSentEventParser`). The first step throws before any event when the
    /// response's `Content-Type` is not `text/event-stream`: `NALError.decoding`, with the start of the body (at
    /// most 64 KiB) in its response.
    public var serverSentEvents: ServerSentEventSequence { ServerSentEventSequence(stream: self) }

    /// The body as JSON lines (NDJSON): one value per line, decoded with `decoder`; empty lines are skipped. A line
    /// that does not decode ends the stream with `NALError.decoding`, whose response holds that line and whose
    /// `line` is its number.
    ///
    /// - Parameters:
    ///   - type: the type of each line's value.
    ///   - decoder: decodes each line.
    ///   - maximumLineLength: the longest line, in bytes; at least 1. A smaller value is raised to 1, with a
    ///     warning.
    public func jsonLines<Value: Decodable>(
        of type: Value.Type, decoder: JSONDecoder = JSONDecoder(),
        maximumLineLength: Int = ResponseStream.defaultMaximumLineLength
    ) -> JSONLineSequence<Value> {
        let length = SettingClamp.clamp(
            maximumLineLength, atLeast: 1, "ResponseStream.jsonLines maximumLineLength", log: CoreLog.request)
        return JSONLineSequence(lines: LineSequence(stream: self, maximumLineLength: length), decoder: decoder)
    }

    /// The most bytes of a refused body kept in an error.
    static let errorBodyLimit = 64 << 10
    /// The longest wait for those bytes.
    static let errorBodyWait: Duration = .seconds(1)

    /// A streamed response's head with the first bytes of its body (at most `errorBodyLimit`, or what came within
    /// `errorBodyWait`), for an error; stops the body.
    static func headWithBodyStart(of response: Response) async -> Response {
        guard let body = response.streamedBody else { return response }
        // A refused body that trickles (keep-alives, or events under the wrong type) must not hold the error back.
        let deadline = Task {
            try? await Task.sleep(for: errorBodyWait)
            if !Task.isCancelled { body.stop(with: .cancelled) }
        }
        defer { deadline.cancel() }
        var collected = Data()
        while collected.count < errorBodyLimit {
            guard let chunk = try? await body.next() else { break }
            collected.append(chunk.prefix(errorBodyLimit - collected.count))
        }
        body.stop(with: .cancelled)
        return response.replacingBody(with: collected)
    }
}

extension Response {
    /// This response as code that keeps it without returning it should hold it (a middleware, in an error or
    /// across a wait): a streamed body is read up to its start (64 KiB, or what came within a second) and stopped,
    /// so that no connection stays open for a body nobody will read. A whole body is kept as it is.
    public func keepingBodyStart() async -> Response {
        await ResponseStream.headWithBodyStart(of: self)
    }
}

/// The lines of a `ResponseStream`.
public struct LineSequence: AsyncSequence, Sendable {
    /// What the sequence yields.
    public typealias Element = String
    /// What the sequence throws: `NALError`.
    public typealias Failure = NALError

    let stream: ResponseStream
    let maximumLineLength: Int

    /// An iterator over the body; iterate a body once.
    public func makeAsyncIterator() -> Iterator {
        Iterator(
            chunks: stream.makeAsyncIterator(), splitter: LineSplitter(maximumLineLength: maximumLineLength),
            url: stream.response.request.url)
    }

    /// Splits chunks into lines as they arrive.
    public struct Iterator: AsyncIteratorProtocol {
        var chunks: ResponseStream.Iterator
        var splitter: LineSplitter
        let url: URL?
        var ready: [String] = []
        var nextReady = 0
        var ended = false
        /// A line past the bound, thrown once the lines that came before it have been delivered.
        var failure: NALError?

        /// The next element, or `nil` at the end, on the caller's actor.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws(NALError) -> String?
        {
            while nextReady == ready.count {
                ready.removeAll(keepingCapacity: true)
                nextReady = 0
                // The lines before an overlong one were delivered first; now its error.
                if let failure {
                    self.failure = nil
                    ended = true
                    throw failure
                }
                guard !ended else { return nil }
                guard let chunk = try await chunks.next(isolation: actor) else {
                    ended = true
                    if let last = splitter.finish() { return String(decoding: last, as: UTF8.self) }
                    return nil
                }
                var overlong = false
                var lines = ready
                chunk.withUnsafeBytes { bytes in
                    splitter.feed(bytes) { piece in
                        switch piece {
                        // The stream ends at an overlong line: what follows it is never delivered.
                        case .line(let line) where !overlong: lines.append(String(decoding: line, as: UTF8.self))
                        case .line: break
                        case .overlong: overlong = true
                        }
                    }
                }
                ready = lines
                if overlong { failure = .responseTooLarge(limit: splitter.maximumLineLength, url: url) }
            }
            defer { nextReady += 1 }
            return ready[nextReady]
        }

        /// The next element, or `nil` at the end.
        public mutating func next() async throws(NALError) -> String? {
            try await next(isolation: nil)
        }
    }
}

/// The server-sent events of a `ResponseStream`.
public struct ServerSentEventSequence: AsyncSequence, Sendable {
    /// What the sequence yields.
    public typealias Element = ServerSentEvent
    /// What the sequence throws: `NALError`.
    public typealias Failure = NALError

    let stream: ResponseStream

    /// An iterator over the body; iterate a body once.
    public func makeAsyncIterator() -> Iterator {
        Iterator(stream: stream, chunks: stream.makeAsyncIterator())
    }

    /// Parses chunks into events as they arrive.
    public struct Iterator: AsyncIteratorProtocol {
        let stream: ResponseStream
        var chunks: ResponseStream.Iterator
        var parser = ServerSentEventParser()
        var ready: [ServerSentEvent] = []
        var nextReady = 0
        var checked = false
        /// An event past the bound, thrown once the events that came before it have been delivered.
        var failure: NALError?
        var ended = false

        /// The next element, or `nil` at the end, on the caller's actor.
        public mutating func next(
            isolation actor: isolated (any Actor)? = #isolation
        ) async throws(NALError) -> ServerSentEvent? {
            if !checked {
                checked = true
                try await EventStreamHead.check(stream)
            }
            while nextReady == ready.count {
                if let failure {
                    self.failure = nil
                    ended = true
                    throw failure
                }
                guard !ended, let chunk = try await chunks.next(isolation: actor) else {
                    parser.finish()
                    ended = true
                    return nil
                }
                ready = parser.parse(chunk)
                nextReady = 0
                if let kept = parser.eventsBeforeFirstDrop {
                    // The stream ends at the dropped event: what follows it is never delivered.
                    ready.removeSubrange(kept...)
                    failure = .responseTooLarge(limit: parser.maximumEventSize, url: stream.response.request.url)
                }
            }
            defer { nextReady += 1 }
            return ready[nextReady]
        }

        /// The next element, or `nil` at the end.
        public mutating func next() async throws(NALError) -> ServerSentEvent? {
            try await next(isolation: nil)
        }
    }
}

/// The values of a JSON-lines body.
public struct JSONLineSequence<Value: Decodable>: AsyncSequence, Sendable {
    /// What the sequence yields.
    public typealias Element = Value
    /// What the sequence throws: `NALError`.
    public typealias Failure = NALError

    let lines: LineSequence
    let decoder: JSONDecoder

    init(lines: LineSequence, decoder: JSONDecoder) {
        self.lines = lines
        self.decoder = decoder
    }

    /// An iterator over the body; iterate a body once.
    public func makeAsyncIterator() -> Iterator {
        Iterator(lines: lines.makeAsyncIterator(), decoder: decoder, response: lines.stream.response)
    }

    /// Decodes each non-empty line.
    public struct Iterator: AsyncIteratorProtocol {
        var lines: LineSequence.Iterator
        let decoder: JSONDecoder
        let response: Response
        /// Lines taken so far, empty ones included: the number of the line being decoded.
        var lineNumber = 0

        /// The next element, or `nil` at the end, on the caller's actor.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws(NALError) -> Value?
        {
            while let line = try await lines.next(isolation: actor) {
                lineNumber += 1
                guard line.contains(where: { !$0.isWhitespace }) else { continue }
                let data = Data(line.utf8)
                do {
                    return try decoder.decode(Value.self, from: data)
                } catch {
                    throw .decoding(
                        DecodingFailure(
                            type: String(describing: Value.self), keyPath: nil, underlying: error,
                            response: response.replacingBody(with: data), line: lineNumber))
                }
            }
            return nil
        }

        /// The next element, or `nil` at the end.
        public mutating func next() async throws(NALError) -> Value? {
            try await next(isolation: nil)
        }
    }
}
