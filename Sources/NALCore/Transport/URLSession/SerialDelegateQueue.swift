import NALLogging
import Synchronization

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// The delegate queue of `URLSessionTransport`'s session: every delegate callback runs in order on one serial
/// dispatch queue, and a producer that runs ahead of the callbacks is made to wait.
///
/// - Cost. FoundationNetworking delivers each callback (response, every body chunk, completion) with
///   `delegateQueue.addOperation { ... }`. A plain `OperationQueue` wraps each closure in a `BlockOperation` and runs
///   it through its own scheduling, which on Linux costs more than the callback itself; a delegate-based task makes
///   three or more such calls where `data(for:)` makes one. Overriding the closure form keeps the same guarantee,
///   one callback at a time in submission order, at the price of a dispatch.
/// - Backpressure. `addOperation` is called on the session's work queue, the thread that reads the sockets.
///   `URLSessionTask.suspend()` crashes on Linux, so a transfer cannot be paused, and chunks that arrive faster than
///   the callbacks consume them pile up in memory. When more than `highWater` callbacks are waiting, the producer
///   waits here until they drop below `lowWater`; libcurl stops reading meanwhile and TCP slows the sender down.
///   The wait is capped (`maximumWait`), and no delegate callback of NAL's blocks on the work queue, so this cannot
///   deadlock. A producer running in a Swift task (a URLProtocol such as NAL's stub server) is never blocked: that
///   would starve the cooperative thread pool. It waits with `awaitCapacity()` instead.
final class SerialDelegateQueue: OperationQueue, @unchecked Sendable {
    // @unchecked: the state is an immutable serial dispatch queue and an atomic counter, both thread-safe.
    private let queue = DispatchQueue(label: "dev.nal.transport.delegate")
    private let waiting = Atomic<Int>(0)
    /// Calls that wait for the work queue, queued and not yet done: while there are any, the producer is never held
    /// back, since holding it back would hold them.
    private let pendingWorkQueueCalls = Atomic<Int>(0)
    /// Callbacks waiting on every queue, for producers that wait in a task.
    private static let waitingEverywhere = Atomic<Int>(0)

    /// Callbacks waiting past which the producer is held back: about 8 MiB of 16 KiB chunks.
    static let highWater = 512
    static let lowWater = 128
    static let maximumWait: Duration = .milliseconds(250)

    /// Callbacks waiting past which this queue's producer is held back, and below which it goes on.
    private let holdBackAt: (high: Int, low: Int)

    /// Where cancellations wait for FoundationNetworking's work queue, each on a thread of its own: one waiting
    /// behind another would keep a connection open, and its server sending, for as long as the queue is busy.
    private static let cancellations = DispatchQueue(label: "dev.nal.transport.cancel", attributes: .concurrent)
    /// The cancellations handed to `cancellations` that a completion must wait for, by task identifier.
    private let asideCancellations = Locked<[Int: DispatchGroup]>([:])

    /// A queue that holds its producer back past `highWater` waiting callbacks (see the type's documentation).
    init(highWater: Int = SerialDelegateQueue.highWater) {
        holdBackAt = (max(2, highWater), max(1, highWater / 4))
        super.init()
        maxConcurrentOperationCount = 1
    }

    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        if waiting.load(ordering: .relaxed) >= holdBackAt.high, withUnsafeCurrentTask(body: { $0 == nil }) {
            holdBack()
        }
        waiting.add(1, ordering: .relaxed)
        Self.waitingEverywhere.add(1, ordering: .relaxed)
        queue.async {
            block()
            self.waiting.subtract(1, ordering: .relaxed)
            Self.waitingEverywhere.subtract(1, ordering: .relaxed)
        }
    }

    /// Cancels `task` once the callbacks already queued here have run, without holding this queue meanwhile.
    ///
    /// FoundationNetworking's `cancel()` checks the task's state, then reports the cancellation later from the task's
    /// work queue without checking again; a completion in between removes the task from the session's registry, and
    /// the late report traps the process ("a task that is not in the registry", Linux fact 25). A completion queued
    /// here before the cancellation has run first and marked the task completed, so `cancel()` does nothing. One
    /// queued after it could run beside `cancel()`, and FoundationNetworking marks the task completed on this queue
    /// right after the delegate's `didCompleteWithError`: so that callback first waits for the cancellation to
    /// return (`awaitAsideCancellation(of:)`), and the report is queued on the work queue before the removal.
    ///
    /// `cancel()` itself waits for the work queue, a second or more when it is busy, on a thread of its own: held
    /// here, the chunks the server goes on sending meanwhile piled up behind it (a gzip bomb cut at its limit grew
    /// the process to 4 GB, three dropped streams by hundreds of MiB); drained, they are dropped as they come, and
    /// the producer is still held back if they outrun this queue.
    func cancel(_ task: URLSessionTask) {
        queue.async {
            // Registered here, on this queue: a completion that runs before this block finds nothing to wait for
            // (and the cancellation then finds the task completed), one after it waits for the cancellation.
            let returned = DispatchGroup()
            returned.enter()
            self.asideCancellations.withLock { $0[task.taskIdentifier] = returned }
            Self.cancellations.async {
                task.cancel()
                returned.leave()
            }
        }
    }

    /// Waits, on this queue, until a cancellation of `task` handed to another thread has returned; at once when there
    /// is none. Called by the delegate as the task completes, before FoundationNetworking marks it completed.
    func awaitAsideCancellation(of task: URLSessionTask) {
        guard let returned = asideCancellations.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else {
            return
        }
        returned.wait()
    }

    /// Runs `work`, which waits for the session's work queue (creating, resuming or cancelling a task, or declining
    /// an authentication challenge, which makes Foundation cancel it), on this queue as `cancel(_:)` does.
    ///
    /// Those calls `sync` on the work queue that every session in the process shares (Linux fact 26), which may be
    /// busy for a long time (inflating a large body, or holding back a slow consumer): made from a Swift task, they
    /// would block a thread of the cooperative pool, and on two cores two of them stop every task in the process.
    func waitingForWorkQueue(_ work: @escaping @Sendable () -> Void) {
        pendingWorkQueueCalls.add(1, ordering: .relaxed)
        queue.async {
            work()
            self.pendingWorkQueueCalls.subtract(1, ordering: .relaxed)
        }
    }

    /// Waits, without blocking a thread, while the transports' delegate queues hold more than `highWater` callbacks
    /// between them (at most `maximumWait`): the backpressure for producers that run in Swift tasks.
    static func awaitCapacity() async {
        guard waitingEverywhere.load(ordering: .relaxed) >= highWater else { return }
        let clock = ContinuousClock()
        let giveUp = clock.now + maximumWait
        while waitingEverywhere.load(ordering: .relaxed) > lowWater, clock.now < giveUp {
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    private func holdBack() {
        let clock = ContinuousClock()
        let giveUp = clock.now + Self.maximumWait
        while waiting.load(ordering: .relaxed) > holdBackAt.low, pendingWorkQueueCalls.load(ordering: .relaxed) == 0,
            clock.now < giveUp
        {
            usleep(500)
        }
    }
}
