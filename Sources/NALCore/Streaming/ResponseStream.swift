public import Foundation
import Synchronization

/// A response whose body arrives as it is sent: `Client.stream(_:)` returns it once the head has arrived and been
/// validated.
///
/// ```swift
/// let stream = try await client.stream(.export(day: "2026-11-23"))
/// print(stream.response.statusCode)
/// for try await chunk in stream { sink.write(chunk) }                   // Data, as it arrives
/// for try await line in stream.lines { print(line) }                   // or lines
/// for try await event in stream.serverSentEvents { print(event.data) } // or server-sent events
/// for try await row in stream.jsonLines(of: Row.self) { rows.append(row) }
/// ```
///
/// A stream is read once, by one loop: the first iterator that reads it owns it, another one fails at once with
/// `NALError.streamAlreadyBeingRead`, and the first goes on. Leaving the loop early, cancelling its task, or dropping
/// the stream unread cancels the request and closes its connection. Iterating throws `NALError`: `.timedOut` when nothing arrives for
/// the idle timeout (time spent in your loop does not count), `.transport` when the connection breaks, `.cancelled`.
public struct ResponseStream: AsyncSequence, Sendable {
    /// What the sequence yields.
    public typealias Element = Data
    /// What the sequence throws: `NALError`.
    public typealias Failure = NALError

    /// The status and headers; its `data` is empty (the body is this sequence).
    public let response: Response
    /// The body's chunks.
    package let body: StreamedBody

    /// Creates a stream from a head and its body; transports and stubs call this through `Response`.
    public init(response: Response, body: StreamedBody) {
        self.response = response
        self.body = body
    }

    /// An iterator over the body; iterate a body once.
    public func makeAsyncIterator() -> Iterator {
        Iterator(body: body)
    }

    /// Takes the body's chunks in order. Dropping the iterator before the end cancels the request.
    public struct Iterator: AsyncIteratorProtocol {
        private let reader: Reader

        init(body: StreamedBody) {
            reader = Reader(body: body)
        }

        /// The next element, or `nil` at the end.
        public mutating func next() async throws(NALError) -> Data? {
            try await reader.next()
        }

        /// The next element, or `nil` at the end, on the caller's actor.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(NALError) -> Data? {
            try await reader.next()
        }
    }

    /// The consumer's hold on a body. The first iterator that reads becomes its one reader; another one fails with
    /// `streamAlreadyBeingRead` whenever it asks, and the reader goes on. When the last copy of the reader goes
    /// away before the body ended, the body is stopped, which cancels its request; an iterator that never read
    /// stops nothing.
    final class Reader: Sendable {
        let body: StreamedBody
        /// Set once this reader has claimed the body, so that later chunks take no extra lock.
        private let claimed = Atomic<Bool>(false)

        init(body: StreamedBody) {
            self.body = body
        }

        func next() async throws(NALError) -> Data? {
            if claimed.load(ordering: .relaxed) { return try await body.next() }
            let chunk = try await body.next(for: ObjectIdentifier(self))
            claimed.store(true, ordering: .relaxed)
            return chunk
        }

        deinit {
            if body.isRead(by: ObjectIdentifier(self)) { body.stop(with: .cancelled) }
        }
    }
}
