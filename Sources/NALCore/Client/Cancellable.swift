import NALLogging
import Synchronization

/// A handle to a call made with a completion handler. `cancel()` cancels the underlying request and delivers
/// `NALError.cancelled` to the completion handler at once, whatever the call's parts still do; the handler is
/// called exactly once.
public final class Cancellable: Sendable {
    private let cancelled = Atomic<Bool>(false)
    private let delivered = Atomic<Bool>(false)
    private let attached = Locked<(task: Task<Void, Never>, onCancel: @Sendable () -> Void)?>(nil)

    init() {}

    /// Ties the call's task to this handle; `onCancel` delivers the cancellation when `cancel()` wins the delivery.
    func attach(_ task: Task<Void, Never>, onCancel: @escaping @Sendable () -> Void) {
        attached.withLock { $0 = (task, onCancel) }
        if isCancelled { cancelAttached() }
    }

    /// Claims the one delivery of a result: `true` for the first caller only.
    func claimDelivery() -> Bool {
        !delivered.exchange(true, ordering: .acquiringAndReleasing)
    }

    /// Whether `cancel()` was called.
    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Cancels the call. Calling it again does nothing.
    public func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        cancelAttached()
    }

    private func cancelAttached() {
        guard let (task, onCancel) = attached.withLock({ $0 }) else { return }
        task.cancel()
        if claimDelivery() { onCancel() }
    }
}
