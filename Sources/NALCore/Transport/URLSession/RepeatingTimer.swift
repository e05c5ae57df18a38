import Dispatch

/// A dispatch timer that can be started and stopped from any thread.
final class RepeatingTimer: @unchecked Sendable {
    // @unchecked: a dispatch source's `schedule` and `cancel` are thread-safe; the source is never replaced.
    private let source: any DispatchSourceTimer

    init(label: String, handler: @escaping @Sendable () -> Void) {
        source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: label))
        source.setEventHandler(handler: handler)
        source.schedule(deadline: .distantFuture)
        source.activate()
    }

    /// Fires every `interval` from now on.
    func start(every interval: DispatchTimeInterval) {
        source.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(1))
    }

    /// Stops firing until `start` is called again.
    func stop() {
        source.schedule(deadline: .distantFuture)
    }

    deinit {
        source.cancel()
    }
}
