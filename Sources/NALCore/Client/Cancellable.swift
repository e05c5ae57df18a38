import NALLogging
import Synchronization

/// A handle to a call made with a completion handler. `cancel()` cancels the underlying request; the completion
/// handler then receives `NALError.cancelled`.
public final class Cancellable: Sendable {
    private let cancelled = Atomic<Bool>(false)
    private let task = Locked<Task<Void, Never>?>(nil)

    init() {}

    func attach(_ task: Task<Void, Never>) {
        self.task.withLock { $0 = task }
        if isCancelled { task.cancel() }
    }

    /// Whether `cancel()` was called.
    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Cancels the call. Calling it again does nothing.
    public func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        task.withLock { $0 }?.cancel()
    }
}
