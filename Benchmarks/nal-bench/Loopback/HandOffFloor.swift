#if os(Linux)
    import Foundation
    import Glibc
    import NALLogging

    /// The two thread hand-offs a call through `CurlTransport` from an ordinary task makes, and nothing else: a task queues its
    /// continuation and writes a byte to a socket pair (as `curl_multi_wakeup` does), a thread waiting in `poll`
    /// (as in `curl_multi_poll`) wakes, reads it and resumes the continuation, and the task runs again on the
    /// cooperative pool. No network, no libcurl.
    ///
    /// Any transport that never blocks a pool thread on a socket pays this per call on top of libcurl's own work;
    /// the curl CLI, one thread doing everything, does not; nor does a call made from the transport's own thread
    /// (`CurlTransport.executor`). The loopback report subtracts it from the default mode's ratios to show what
    /// remains.
    final class HandOffFloor: Sendable {
        private let wakeRead: Int32
        private let wakeWrite: Int32
        private let waiting = Locked<[UnsafeContinuation<Void, Never>]>([])

        init?() {
            var descriptors: [Int32] = [0, 0]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &descriptors) == 0
            else { return nil }
            wakeRead = descriptors[0]
            wakeWrite = descriptors[1]
            // The thread lives as long as the benchmark process.
            let thread = Thread { [self] in wait() }
            thread.name = "nal.handoff"
            thread.start()
        }

        /// One round trip through the waiting thread.
        func call() async {
            await withUnsafeContinuation { continuation in
                waiting.withLock { $0.append(continuation) }
                var byte: UInt8 = 1
                _ = write(wakeWrite, &byte, 1)
            }
        }

        private func wait() {
            var descriptor = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
            var buffer = [UInt8](repeating: 0, count: 64)
            while true {
                _ = poll(&descriptor, 1, -1)
                _ = read(wakeRead, &buffer, buffer.count)
                // A continuation queued after this takes the list has written its byte after the read above, so
                // the next poll returns at once.
                let ready = waiting.withLock { waiting in
                    defer { waiting = [] }
                    return waiting
                }
                for continuation in ready { continuation.resume() }
            }
        }
    }
#endif
