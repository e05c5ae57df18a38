public import Foundation

/// A response body that arrives over time: a transport appends chunks as they come through its `Writer`, one
/// consumer reads them (`ResponseStream`), and what waits in between is bounded.
///
/// ```swift
/// // In a transport of your own:
/// let (body, writer) = StreamedBody.makeStream()
/// writer.onCancel { connection.close() }
/// for await chunk in connection.chunks {
///     guard writer.append(chunk) else { break }       // false: the consumer stopped
///     await writer.awaitCapacity()                     // the consumer is slower than the network
/// }
/// writer.finish()
/// return Response(request: request, httpResponse: head, data: Data(), timing: timing, streamedBody: body)
/// ```
///
/// The consumer's side stops the body, and runs the writer's `onCancel`, when the consumer leaves its loop, its task
/// is cancelled, a total timeout passes, or the last reference to the body goes away unread. Chunks that arrived
/// before a failure are delivered before the error; after a stop nothing more is.
public final class StreamedBody: Sendable {
    /// How a body ended, for whoever watches it (`whenEnded(_:)`): logging, activity indicators, recorders.
    public struct Ending: Sendable {
        /// Body bytes the transport appended.
        public let byteCount: Int64
        /// From the body's creation by the transport (for URLSession, when the request was sent) to its end.
        public let duration: Duration
        /// `nil` when the body ended normally; the error otherwise (`.cancelled` when the consumer stopped).
        public let error: NALError?
    }

    /// The default bound on bytes waiting for the consumer: 1 MiB.
    public static let defaultHighWater = 1 << 20

    let channel: BodyChannel

    private init(channel: BodyChannel) {
        self.channel = channel
    }

    deinit {
        channel.stop(with: .cancelled)
    }

    /// The default bound on bytes a spilling body keeps on disk for a consumer that lags: 4 GiB.
    public static let defaultMaximumSpilled: Int64 = 4 << 30

    /// A body and the writer that fills it; `highWater` bounds the bytes that wait for the consumer in memory.
    ///
    /// - Parameters:
    ///   - highWater: the bytes that may wait in memory; at least 1 (a smaller value is raised to 1, with a
    ///     warning). A producer that can wait checks `Writer.isFull` and calls `Writer.awaitCapacity()`, so that the
    ///     network slows down to the consumer's pace.
    ///   - spillsToDisk: for producers that cannot wait, such as callbacks on a thread that other transfers share
    ///     (URLSession's): chunks past the bound go to an unnamed temporary file, in order, until the consumer
    ///     catches up. Memory stays bounded; the disk holds what the consumer lags behind.
    ///   - maximumSpilled: the most bytes the temporary file may hold, 0 or more (a negative value is raised to 0,
    ///     with a warning); past it the body fails with `responseTooLarge` instead of filling the disk.
    public static func makeStream(
        highWater: Int = defaultHighWater, spillsToDisk: Bool = false, maximumSpilled: Int64 = defaultMaximumSpilled
    ) -> (body: StreamedBody, writer: Writer) {
        let channel = BodyChannel(
            highWater: SettingClamp.clamp(highWater, atLeast: 1, "StreamedBody highWater", log: CoreLog.request),
            spillsToDisk: spillsToDisk,
            maximumSpilled: SettingClamp.clamp(
                maximumSpilled, atLeast: 0, "StreamedBody maximumSpilled", log: CoreLog.request))
        return (StreamedBody(channel: channel), Writer(channel: channel))
    }

    /// A body that holds `data` and has ended: what a transport that cannot stream returns.
    public static func complete(_ data: Data) -> StreamedBody {
        let (body, writer) = makeStream(highWater: max(1, data.count))
        writer.append(data)
        writer.finish()
        return body
    }

    /// Calls `observer` once when the body ends (at once if it has): finished, failed, or stopped by the consumer.
    public func whenEnded(_ observer: @escaping @Sendable (Ending) -> Void) {
        channel.whenEnded(observer)
    }

    /// The bytes waiting for the consumer, in memory and on disk.
    package var waiting: (memory: Int, disk: Int64) { channel.waiting }

    /// Holds back the closing of spill files, which a dropped body leaves to another thread, while `body` runs. For
    /// tests.
    package static func holdingSpillFileCloses<T>(_ body: () async throws -> T) async rethrows -> T {
        try await SpillFile.holdingCloses(body)
    }

    /// The next chunk, or `nil` at the end.
    func next() async throws(NALError) -> Data? {
        try await channel.next()
    }

    /// The next chunk for the iterator `reader`, which becomes the body's one reader if it is the first to ask;
    /// another iterator gets `streamAlreadyBeingRead`.
    func next(for reader: ObjectIdentifier) async throws(NALError) -> Data? {
        guard channel.claim(by: reader) else { throw .streamAlreadyBeingRead }
        return try await channel.next()
    }

    /// Whether the iterator `reader` is the one that reads the body.
    func isRead(by reader: ObjectIdentifier) -> Bool {
        channel.isRead(by: reader)
    }

    /// Stops the body from the consumer's side: the transfer is cancelled and its connection closed, and a reader
    /// gets `NALError.cancelled`. For code that holds a streamed response it will not read (a middleware that
    /// retries, or keeps it in an error).
    public func cancel() {
        channel.stop(with: .cancelled)
    }

    /// Stops the body from the consumer's side (see `BodyChannel.stop(with:)`).
    package func stop(with error: NALError) {
        channel.stop(with: error)
    }

    /// The producer's side of a `StreamedBody`. Holding it does not keep the body alive: a body nobody reads is
    /// stopped even while its writer still runs, and `append(_:)` then returns `false`.
    public struct Writer: Sendable {
        let channel: BodyChannel

        /// Adds a chunk; `false` when the body was stopped and the transfer should end. A chunk is never dropped or
        /// split; after one that fills the bound, wait for capacity before the next (or let the body spill).
        @discardableResult
        public func append(_ data: Data) -> Bool { channel.append(data) }

        /// Whether the bytes waiting for the consumer have reached the bound.
        public var isFull: Bool { channel.isFull }

        /// Whether the body still takes chunks: not finished and not stopped.
        public var isActive: Bool { channel.isActive }

        /// The bytes waiting for the consumer, in memory and on disk.
        package var waiting: (memory: Int, disk: Int64) { channel.waiting }

        /// The name the spill file had before it was unlinked, while the body has one. For tests.
        package var spillFileName: String? { channel.spillFileName }

        /// The bytes waiting at which producers waiting for capacity are woken. For tests.
        package var lowWater: Int { channel.lowWater }

        /// Waits in a task until the consumer has taken most of what waits, or the body was stopped.
        public func awaitCapacity() async { await channel.awaitCapacity() }

        /// Ends the body normally: the consumer gets the chunks that wait, then the end.
        public func finish() { channel.finish() }

        /// Ends the body with `error`, delivered after the chunks that wait.
        public func finish(throwing error: NALError) { channel.finish(throwing: error) }

        /// Says how to stop the transfer when the consumer stops; runs at once if it already has.
        public func onCancel(_ cancel: @escaping @Sendable () -> Void) { channel.onCancel(cancel) }
    }
}
