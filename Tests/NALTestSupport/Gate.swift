import NALLogging

/// A door tasks wait at until a test opens it; once open, it lets every later task through too.
package final class Gate: Sendable {
    private let state = Locked<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    package init() {}

    /// Whether the door has been opened.
    package var isOpen: Bool { state.withLock { $0.isOpen } }

    /// Waits until the door is open.
    package func wait() async {
        await withCheckedContinuation { continuation in
            let opened = state.withLock { state -> Bool in
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if opened { continuation.resume() }
        }
    }

    /// Opens the door: the tasks waiting go on.
    package func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
