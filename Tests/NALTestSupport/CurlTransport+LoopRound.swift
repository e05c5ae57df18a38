#if os(Linux)
    package import NALCore

    extension CurlTransport {
        /// Returns once the event loop has finished the round it is in. A call returns before the loop resets its
        /// handle for reuse, or frees it, later in the same round: a test that counts handles waits for this first.
        /// A job on the loop's executor runs at the start of the next round (or elsewhere, once the loop has ended).
        package func loopRoundEnded() async {
            await Task(executorPreference: executor) {}.value
        }
    }
#endif
