import Foundation
import NALLogging

/// The chunks between a streamed body's producer (`StreamedBody.Writer`) and its consumer (`StreamedBody`), with
/// the bound, the wake-ups and the end. Shared by both sides; only the consumer's handle stops it when dropped.
///
/// Past the bound, a producer that can wait is told to (`isFull`, `awaitCapacity()`); one that cannot, such as
/// URLSession's callbacks, has its chunks moved to a `SpillFile` until the consumer catches up.
package final class BodyChannel: Sendable {
    typealias Ending = StreamedBody.Ending

    /// What waits for the consumer: bytes in memory, or a range of the spill file.
    private enum Piece: Sendable {
        case memory(Data)
        case disk(SpillFile, SpillFile.Extent)
    }

    /// What the consumer is handed: a chunk, the end or a failure; or a range to read from the spill file.
    private enum Taken: Sendable {
        case ready(Result<Data?, NALError>)
        case disk(SpillFile, SpillFile.Extent)
    }

    private struct State: Sendable {
        var chunks: [Piece] = []
        var head = 0
        /// Bytes waiting in memory.
        var buffered = 0
        /// Bytes waiting in the spill file.
        var spilled: Int64 = 0
        var spill: SpillFile?
        var received: Int64 = 0
        /// Set when the producer ended; delivered once the chunks before it are taken.
        var producerEnd: NALError??
        /// Set when the body was stopped from the consumer's side; nothing more is delivered.
        var stopped: NALError?
        var consumer: UnsafeContinuation<Taken, Never>?
        /// The iterator that read first: the only one that may read, and whose end stops the body.
        var reader: ObjectIdentifier?
        var capacityWaiters: [Int: UnsafeContinuation<Void, Never>] = [:]
        /// Waiters whose task was cancelled before they registered: they must not wait.
        var cancelledWaiters: Set<Int> = []
        var nextWaiter = 0
        var onCancel: (@Sendable () -> Void)?
        var observers: [@Sendable (Ending) -> Void] = []
        var ending: Ending?
    }

    private let state: Locked<State>
    private let started: ContinuousClock.Instant
    let highWater: Int
    /// Waiting producers are woken once the bytes waiting fall to this: a quarter of the bound, so that a producer
    /// is not woken for every chunk the consumer takes.
    package var lowWater: Int { highWater / 4 }
    /// Whether chunks past the bound go to a spill file instead of waiting in memory.
    let spillsToDisk: Bool
    /// The most bytes the spill file may hold for a consumer that lags: past it the body fails with
    /// `responseTooLarge` rather than fill the disk.
    let maximumSpilled: Int64

    init(highWater: Int, spillsToDisk: Bool = false, maximumSpilled: Int64 = StreamedBody.defaultMaximumSpilled) {
        self.highWater = max(1, highWater)
        self.spillsToDisk = spillsToDisk
        self.maximumSpilled = max(0, maximumSpilled)
        started = .now
        state = Locked(State())
    }

    // MARK: Producer

    /// Adds a chunk; `false` when the body was stopped and the transfer should end. Never drops: a chunk over the
    /// bound is kept (in memory, or in the spill file when the channel spills), and a producer that can wait is
    /// expected to wait for capacity before the next.
    @discardableResult
    func append(_ data: Data) -> Bool {
        guard !data.isEmpty else { return isActive }
        enum Step {
            case refused
            case handed(UnsafeContinuation<Taken, Never>)
            case kept
            case spill(SpillFile?)
        }
        let step = state.withLock { state -> Step in
            guard state.stopped == nil, state.producerEnd == nil else { return .refused }
            if let consumer = state.consumer {
                state.consumer = nil
                state.received += Int64(data.count)
                return .handed(consumer)
            }
            // Once bytes wait on disk, later ones follow them there until the consumer has caught up, so that
            // memory is used only at the front of the line.
            if spillsToDisk, state.buffered >= highWater || state.spilled > 0 { return .spill(state.spill) }
            state.received += Int64(data.count)
            state.chunks.append(.memory(data))
            state.buffered += data.count
            return .kept
        }
        switch step {
        case .refused: return false
        case .handed(let consumer):
            consumer.resume(returning: .ready(.success(data)))
            return true
        case .kept: return true
        case .spill(let file): return spill(data, into: file)
        }
    }

    /// Writes `data` to the spill file (created on first use) outside the lock, then queues its range.
    private func spill(_ data: Data, into existing: SpillFile?) -> Bool {
        let file: SpillFile
        let extent: SpillFile.Extent
        do throws(NALError) {
            if let existing { file = existing } else { file = try SpillFile() }
            extent = try file.append(data)
        } catch {
            // What arrived before is kept: the consumer gets it, then the error.
            end(with: error)
            return false
        }
        enum Step {
            case refused
            case tooLarge
            case handed(UnsafeContinuation<Taken, Never>)
            case kept
        }
        let step = state.withLock { state -> Step in
            guard state.stopped == nil, state.producerEnd == nil else { return .refused }
            guard state.spilled + Int64(data.count) <= maximumSpilled else { return .tooLarge }
            state.spill = file
            state.received += Int64(data.count)
            if let consumer = state.consumer {
                state.consumer = nil
                return .handed(consumer)
            }
            state.spilled += Int64(data.count)
            // Neighbouring ranges are read as one, up to a few hundred KiB.
            if case .disk(let lastFile, var last)? = state.chunks.last, state.head < state.chunks.count,
                lastFile === file, last.offset + Int64(last.count) == extent.offset,
                last.count + extent.count <= Self.largestRead
            {
                last.count += extent.count
                state.chunks[state.chunks.count - 1] = .disk(file, last)
            } else {
                state.chunks.append(.disk(file, extent))
            }
            return .kept
        }
        switch step {
        case .refused: return false
        case .tooLarge:
            end(with: .responseTooLarge(limit: Int(clamping: maximumSpilled), url: nil))
            return false
        case .handed(let consumer):
            consumer.resume(returning: .disk(file, extent))
            return true
        case .kept: return true
        }
    }

    /// The most bytes read from the spill file at once: what a lagging consumer gets in one piece at most.
    package static let largestRead = 256 << 10

    /// Whether the bytes waiting for the consumer have reached the bound.
    var isFull: Bool { state.withLock { $0.buffered >= highWater && $0.stopped == nil } }

    /// The bytes waiting for the consumer, in memory and in the spill file.
    package var waiting: (memory: Int, disk: Int64) { state.withLock { ($0.buffered, $0.spilled) } }

    /// The name the spill file had before it was unlinked, while the body has one.
    package var spillFileName: String? { state.withLock { $0.spill?.url.lastPathComponent } }

    /// Whether the body still takes chunks: not finished and not stopped.
    var isActive: Bool { state.withLock { $0.stopped == nil && $0.producerEnd == nil } }

    /// Waits in a task until the consumer has taken most of what waits, or the body was stopped.
    /// Returns at once when the calling task is cancelled.
    func awaitCapacity() async {
        let waiter = state.withLock { state -> Int in
            defer { state.nextWaiter &+= 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                let waits = state.withLock { state -> Bool in
                    guard state.buffered >= highWater, state.stopped == nil,
                        state.cancelledWaiters.remove(waiter) == nil
                    else { return false }
                    state.capacityWaiters[waiter] = continuation
                    return true
                }
                if !waits { continuation.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { state -> UnsafeContinuation<Void, Never>? in
                if let continuation = state.capacityWaiters.removeValue(forKey: waiter) { return continuation }
                state.cancelledWaiters.insert(waiter)
                return nil
            }
            continuation?.resume()
        }
        // A cancellation that came after the wait ended leaves nothing behind.
        state.withLock { _ = $0.cancelledWaiters.remove(waiter) }
    }

    /// Ends the body normally: the consumer gets the chunks that wait, then the end.
    func finish() {
        end(with: nil)
    }

    /// Ends the body with `error`, delivered after the chunks that wait.
    func finish(throwing error: NALError) {
        end(with: error)
    }

    /// Says how to stop the transfer when the consumer stops; runs at once if it already has.
    func onCancel(_ cancel: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            guard state.stopped == nil else { return state.producerEnd == nil }
            state.onCancel = cancel
            return false
        }
        if runNow { cancel() }
    }

    // MARK: Watchers

    /// Calls `observer` once when the body ends (at once if it has): finished, failed, or stopped by the consumer.
    func whenEnded(_ observer: @escaping @Sendable (Ending) -> Void) {
        let ending = state.withLock { state -> Ending? in
            if state.ending == nil { state.observers.append(observer) }
            return state.ending
        }
        if let ending { observer(ending) }
    }

    // MARK: Consumer

    /// Makes `reader` the body's one reader if none is yet; `false` when another iterator reads it.
    func claim(by reader: ObjectIdentifier) -> Bool {
        state.withLock { state in
            if state.reader == nil { state.reader = reader }
            return state.reader == reader
        }
    }

    /// Whether `reader` is the iterator that reads the body.
    func isRead(by reader: ObjectIdentifier) -> Bool {
        state.withLock { $0.reader == reader }
    }

    /// The next chunk, or `nil` at the end; throws the body's failure, or `.cancelled` when the calling task is
    /// cancelled (which stops the body).
    func next() async throws(NALError) -> Data? {
        let taken: Taken
        if let immediate = state.withLock({ state -> Taken? in take(&state) }) {
            taken = immediate
        } else {
            taken = await withTaskCancellationHandler {
                await withUnsafeContinuation { (continuation: UnsafeContinuation<Taken, Never>) in
                    let ready = state.withLock { state -> Taken? in
                        if let ready = take(&state) { return ready }
                        // One consumer waits at a time (iterators claim the body; this catches one iterator shared
                        // by two tasks): the second fails at once and the first keeps its place.
                        guard state.consumer == nil else { return .ready(.failure(.streamAlreadyBeingRead)) }
                        state.consumer = continuation
                        return nil
                    }
                    if let ready { continuation.resume(returning: ready) }
                }
            } onCancel: {
                stop(with: .cancelled)
            }
        }
        switch taken {
        case .ready(let result):
            return try result.get()
        case .disk(let file, let extent):
            do {
                return try await file.read(extent)
            } catch {
                stop(with: error)
                throw error
            }
        }
    }

    /// Stops the body from the consumer's side: the transfer is cancelled, waiting chunks are dropped, and a
    /// waiting consumer gets `error`. Does nothing once the body has ended.
    func stop(with error: NALError) {
        let (cancel, consumer, wake, observers, ending) = state.withLock {
            state -> (
                (@Sendable () -> Void)?, UnsafeContinuation<Taken, Never>?, Bool,
                [@Sendable (Ending) -> Void], Ending?
            ) in
            guard state.stopped == nil else { return (nil, nil, false, [], nil) }
            state.stopped = error
            state.chunks = []
            state.head = 0
            state.buffered = 0
            state.spilled = 0
            state.spill = nil
            let consumer = state.consumer
            state.consumer = nil
            let wake = !state.capacityWaiters.isEmpty
            let cancel = state.producerEnd == nil ? state.onCancel : nil
            state.onCancel = nil
            var observers: [@Sendable (Ending) -> Void] = []
            var ending: Ending?
            if state.ending == nil {
                ending = Ending(byteCount: state.received, duration: .now - started, error: error)
                state.ending = ending
                observers = state.observers
                state.observers = []
            }
            return (cancel, consumer, wake, observers, ending)
        }
        if wake { releaseProducers() }
        cancel?()
        // Watchers hear of the end before the consumer does, so that a loop that has ended finds it logged.
        if let ending { for observer in observers { observer(ending) } }
        consumer?.resume(returning: .ready(.failure(error)))
    }

    /// Ends the body from the producer's side. Watchers hear of it before the consumer can see it: the end is
    /// published to the consumer only after they have run, so a loop that has ended finds its end logged.
    private func end(with error: NALError?) {
        let (observers, ending) = state.withLock { state -> ([@Sendable (Ending) -> Void], Ending?) in
            guard state.stopped == nil, state.producerEnd == nil, state.ending == nil else { return ([], nil) }
            let ending = Ending(byteCount: state.received, duration: .now - started, error: error)
            state.ending = ending
            defer { state.observers = [] }
            return (state.observers, ending)
        }
        guard let ending else { return }
        for observer in observers { observer(ending) }
        let consumer = state.withLock { state -> UnsafeContinuation<Taken, Never>? in
            guard state.stopped == nil else { return nil }
            state.producerEnd = .some(error)
            state.onCancel = nil
            let consumer = state.head == state.chunks.count ? state.consumer : nil
            if consumer != nil { state.consumer = nil }
            return consumer
        }
        consumer?.resume(returning: .ready(error.map { .failure($0) } ?? .success(nil)))
    }

    /// Takes what the consumer can have now: a chunk, the end, or the failure; `nil` when it must wait.
    private func take(_ state: inout State) -> Taken? {
        if let stopped = state.stopped { return .ready(.failure(stopped)) }
        if state.head < state.chunks.count {
            let piece = state.chunks[state.head]
            state.head += 1
            if state.head == state.chunks.count {
                state.chunks.removeAll(keepingCapacity: true)
                state.head = 0
            } else if state.head >= 64 {
                state.chunks.removeFirst(state.head)
                state.head = 0
            }
            switch piece {
            case .memory(let chunk):
                state.buffered -= chunk.count
                if state.buffered <= lowWater { wakeWaiters(&state) }
                return .ready(.success(chunk))
            case .disk(let file, let extent):
                state.spilled -= Int64(extent.count)
                // Caught up: the file goes once this read is done, and a later backlog starts a new, empty one.
                if state.spilled == 0 { state.spill = nil }
                return .disk(file, extent)
            }
        }
        if let end = state.producerEnd { return .ready(end.map { .failure($0) } ?? .success(nil)) }
        return nil
    }

    private func wakeWaiters(_ state: inout State) {
        let waiters = state.capacityWaiters.values
        state.capacityWaiters = [:]
        for waiter in waiters { waiter.resume() }
    }

    private func releaseProducers() {
        let waiters = state.withLock { state -> [UnsafeContinuation<Void, Never>] in
            defer { state.capacityWaiters = [:] }
            return Array(state.capacityWaiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }
}
