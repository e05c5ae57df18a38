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
    enum Piece: Sendable {
        case memory(Data)
        case disk(SpillFile, SpillFile.Extent)
    }

    /// What the consumer is handed: a chunk, the end or a failure; or a range to read from the spill file.
    enum Taken: Sendable {
        case ready(Result<Data?, NALError>)
        case disk(SpillFile, SpillFile.Extent)
    }

    struct State: Sendable {
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

    let state: Locked<State>
    let started: ContinuousClock.Instant
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
}
