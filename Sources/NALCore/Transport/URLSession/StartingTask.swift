import NALLogging

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// A call's `URLSessionTask`, which is created and resumed on the delegate queue after the call begins: a
/// cancellation that comes before it exists is remembered, and the task is then never resumed.
final class StartingTask: Sendable {
    private enum Phase {
        case starting
        case started(URLSessionTask)
        case cancelled
    }

    private let phase = Locked(Phase.starting)

    /// Records `task`, whose call state is in place; `false` when the call was cancelled first.
    func started(_ task: URLSessionTask) -> Bool {
        phase.withLock { phase in
            guard case .starting = phase else { return false }
            phase = .started(task)
            return true
        }
    }

    /// Marks the call cancelled, and returns its task when it has one.
    func cancel() -> URLSessionTask? {
        phase.withLock { phase in
            switch phase {
            case .started(let task): return task
            case .starting, .cancelled:
                phase = .cancelled
                return nil
            }
        }
    }
}
