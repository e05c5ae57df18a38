#if os(Linux)
    /// When a transfer last moved a byte, for its idle timeout, and whether its stream's consumer holds it back.
    /// Event-loop thread only.
    ///
    /// running ─pause→ paused (idle time does not count) ─resume→ running (the clock starts again)
    struct TransferActivity {
        /// When a byte last moved, or the transfer last resumed.
        private(set) var last = ContinuousClock.now
        /// The consumer is behind: libcurl holds the bytes until `resume()`.
        private(set) var isPaused = false
        /// The byte counts libcurl last reported, to tell activity from a quiet transfer.
        private var counted: (sent: Int64, received: Int64) = (0, 0)

        /// A byte moved now.
        mutating func touch() {
            last = .now
        }

        /// libcurl's counts; `true` when more was sent than before.
        mutating func counts(sent: Int64, received: Int64) -> Bool {
            guard sent != counted.sent || received != counted.received else { return false }
            let sentMore = sent != counted.sent
            counted = (sent, received)
            last = .now
            return sentMore
        }

        mutating func pause() {
            isPaused = true
        }

        mutating func resume() {
            isPaused = false
            last = .now
        }
    }
#endif
