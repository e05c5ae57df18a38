#if os(Linux)
    import NALLogging

    /// How a call on the event loop ends, once: the loop (or a cancellation, from any thread) finishes it, and the
    /// caller waits for it. Finishing again does nothing; a caller that comes after the end gets it at once.
    ///
    /// waiting(nil) ─wait→ waiting(caller) ─finish→ finished(nil): the caller is resumed
    /// waiting(nil) ─finish→ finished(value) ─wait→ finished(nil): the caller takes the kept value
    final class TransferOutcome<Value: Sendable>: Sendable {
        typealias Outcome = Result<Value, NALError>

        private enum State: Sendable {
            case waiting(CheckedContinuation<Outcome, Never>?)
            case finished(Outcome?)
        }

        private let state = Locked<State>(.waiting(nil))

        /// Ends the call with `outcome`, once: later calls do nothing.
        func finish(_ outcome: Outcome) {
            let waiting = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
                guard case .waiting(let continuation) = state else { return nil }
                state = .finished(continuation == nil ? outcome : nil)
                return continuation
            }
            waiting?.resume(returning: outcome)
        }

        /// Whether the call has ended.
        var isFinished: Bool {
            state.withLock { state in
                if case .finished = state { return true }
                return false
            }
        }

        /// Waits for the outcome. One caller only, the call itself: a second caller would take the first's place
        /// while it waits, and one that comes after the outcome was taken gets `.cancelled`.
        func value() async -> Outcome {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Outcome? in
                    switch state {
                    case .waiting:
                        state = .waiting(continuation)
                        return nil
                    case .finished(let outcome):
                        state = .finished(nil)
                        return outcome ?? .failure(.cancelled)
                    }
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
#endif
