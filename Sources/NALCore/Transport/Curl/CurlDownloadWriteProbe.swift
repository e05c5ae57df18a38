#if os(Linux)
    import Foundation
    import Synchronization

    /// What tests see of a transport's download writes, and the slow disk they can make: each write held back by a
    /// delay, on the writes' own queue, as a slow device holds back the thread that writes to it.
    final class CurlDownloadWriteProbe: Sendable {
        /// How long each write waits before it is made, in nanoseconds; 0 outside tests.
        let delayNanoseconds = Atomic<Int>(0)
        /// The most bytes that ever waited to be written, of any download of the transport.
        let peakWaiting = Atomic<Int>(0)
        /// How many times a download paused because its writes were behind.
        let pauses = Atomic<Int>(0)
        /// How many slowed writes ran on the event loop's thread, where they would hold back every transfer.
        let writesOnLoop = Atomic<Int>(0)

        /// Notes that `waiting` bytes wait now.
        func noteWaiting(_ waiting: Int) {
            var peak = peakWaiting.load(ordering: .relaxed)
            while waiting > peak {
                let (exchanged, current) = peakWaiting.compareExchange(
                    expected: peak, desired: waiting, ordering: .relaxed)
                if exchanged { return }
                peak = current
            }
        }

        /// Holds the calling thread back as a slow disk would, when a test asked for it.
        func delayWrite() {
            let delay = delayNanoseconds.load(ordering: .relaxed)
            guard delay > 0 else { return }
            if Thread.current.name == CurlEventLoop.threadName { writesOnLoop.add(1, ordering: .relaxed) }
            Thread.sleep(forTimeInterval: Double(delay) / 1e9)
        }
    }
#endif
