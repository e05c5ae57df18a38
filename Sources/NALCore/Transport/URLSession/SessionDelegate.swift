import NALLogging

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// The session delegate of `URLSessionTransport`: runs one data task per `exchange`, with per-task state keyed by
/// task identifier under one lock.
///
/// A call ends exactly once, by whichever comes first: the task completing, the body passing its limit, the idle
/// timeout, or the calling `Task` being cancelled. Ending early removes the state at once, so chunks that are
/// still queued for the delegate are dropped as they arrive, and cancels the `URLSessionTask` on the delegate queue
/// (`SerialDelegateQueue.cancel(_:)`): there it is ordered with the task's completion, which FoundationNetworking
/// would otherwise let remove the task before the cancellation reports, and trap (Linux fact 25).
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    typealias Outcome = Result<(HTTPURLResponse, Data), NALError>

    let states = Locked<[Int: State]>([:])
    /// Checks idle times every few milliseconds while calls are in flight, and sleeps otherwise: one timer for all
    /// calls, so that a call costs no extra task or timer of its own.
    let idleTimer: RepeatingTimer
    /// Whether the timer is ticking; changed only under the `states` lock.
    let ticking = Locked(false)
    static let tick = DispatchTimeInterval.milliseconds(5)
    /// Past this many bytes, a body is reserved its final capacity.
    static let largeBody = 1 << 20
    /// The most capacity reserved at once; past it a body grows as it comes. A limit, or a `Content-Length` under
    /// it, may be far larger than memory, and a reservation the system refuses stops the process (`Data` traps).
    static let largestReservation = 256 << 20

    let delegateQueue: SerialDelegateQueue

    init(delegateQueue: SerialDelegateQueue) {
        self.delegateQueue = delegateQueue
        // A weak reference, not a stored closure: a closure kept as `Locked`'s generic value is re-abstracted and
        // written back by every `withLock`, so each tick wrapped it in one more thunk. After 30 minutes of calls the
        // chain was hundreds of thousands deep, each tick walked it, and releasing it overflowed the stack.
        let target = Locked(WeakTarget())
        idleTimer = RepeatingTimer(label: "dev.nal.transport.idle-timer") {
            target.withLock { $0.delegate }?.checkIdleTimes()
        }
        super.init()
        target.withLock { $0.delegate = self }
    }

    /// The delegate the idle timer checks, without keeping it alive.
    private struct WeakTarget: Sendable {
        weak var delegate: SessionDelegate?
    }
}
