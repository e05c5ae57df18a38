#if os(Linux)
    import CCurl
    import Foundation
    import NALLogging

    /// The thread that drives libcurl's multi interface for one `CurlTransport`: it adds and removes handles, runs
    /// `curl_multi_perform`, hands finished transfers their result, and ends transfers that have been idle too long.
    ///
    /// Everything libcurl is told happens on this thread; other threads only queue commands and wake it with
    /// `curl_multi_wakeup`. It waits in `curl_multi_poll`, never on a Swift task's thread.
    final class CurlEventLoop: @unchecked Sendable {
        private struct Queue: Sendable {
            var commands: [CurlTransfer] = []
            var stops: [CurlTransfer] = []
            var resumes: [CurlTransfer] = []
            var shuttingDown = false
        }

        // @unchecked: `multi` is used by the loop thread only, apart from `curl_multi_wakeup`, which libcurl allows
        // from any thread; `running` is the loop thread's alone; `queue` is behind its lock.
        private let multi: UnsafeMutableRawPointer
        private let queue = Locked(Queue())
        /// The transfers whose handles are in the multi handle, by handle; holding them here keeps the pointers the
        /// callbacks use valid.
        private var running: [UnsafeMutableRawPointer: CurlTransfer] = [:]

        /// The longest `curl_multi_poll` wait, so that idle deadlines are checked even when nothing happens.
        private static let longestWait = 250
        /// The `curl_multi_poll` wait with no transfer running, in milliseconds.
        private static let waitWhenIdle = 60_000

        init(maximumConnectionsPerHost: Int) throws(NALError) {
            guard let multi = nal_curl_multi_init() else {
                throw .transportUnavailable("libcurl could not make a multi handle (curl_multi_init failed)")
            }
            self.multi = multi
            _ = nal_curl_multi_setopt_long(multi, CurlMultiOption.pipelining.rawValue, CurlValue.multiplex)
            _ = nal_curl_multi_setopt_long(
                multi, CurlMultiOption.maximumHostConnections.rawValue, max(1, maximumConnectionsPerHost))
            let thread = Thread { [self] in run() }
            thread.name = "nal.curl"
            thread.start()
        }

        // Freed here, not when the loop ends: a stream's cancel may still be waking the multi handle then, and the
        // thread's closure keeps the loop alive until `run()` has returned.
        deinit {
            _ = nal_curl_multi_cleanup(multi)
        }

        /// Queues `transfer` to start.
        func start(_ transfer: CurlTransfer) {
            transfer.eventLoop = self
            let refused = queue.withLock { queue -> Bool in
                guard !queue.shuttingDown else { return true }
                queue.commands.append(transfer)
                return false
            }
            if refused { transfer.finish(.failure(.cancelled)) }
            _ = nal_curl_multi_wakeup(multi)
        }

        /// Queues `transfer`, paused while its stream's consumer was behind, to receive again.
        func resume(_ transfer: CurlTransfer) {
            queue.withLock { $0.resumes.append(transfer) }
            _ = nal_curl_multi_wakeup(multi)
        }

        /// Queues `transfer` to be removed; it then ends with `.cancelled`, unless it had ended already.
        func stop(_ transfer: CurlTransfer) {
            queue.withLock { $0.stops.append(transfer) }
            _ = nal_curl_multi_wakeup(multi)
        }

        /// Ends the loop once the transfers still running have ended (a streamed body may outlive its transport, as
        /// with URLSession's `finishTasksAndInvalidate`); no new transfer starts. The thread then frees libcurl's
        /// handles.
        func shutDown() {
            queue.withLock { $0.shuttingDown = true }
            _ = nal_curl_multi_wakeup(multi)
        }

        // MARK: Loop thread

        private func run() {
            while true {
                let (starts, stops, resumes, shuttingDown) = queue.withLock { queue in
                    defer {
                        queue.commands = []
                        queue.stops = []
                        queue.resumes = []
                    }
                    return (queue.commands, queue.stops, queue.resumes, queue.shuttingDown)
                }
                for transfer in starts { add(transfer) }
                for transfer in stops {
                    // Out of the multi handle first: once the caller hears of the end, no callback writes again
                    // (a download's partial file, which the next call may resume at once).
                    remove(transfer)
                    transfer.finish(.failure(.cancelled))
                    transfer.failStream(.cancelled)
                }
                for transfer in resumes { resumeNow(transfer) }
                if shuttingDown, running.isEmpty { break }
                var active: Int32 = 0
                _ = nal_curl_multi_perform(multi, &active)
                var done = nal_curl_done()
                while nal_curl_multi_next_done(multi, &done) != 0 {
                    guard let easy = done.easy, let transfer = running[easy] else { continue }
                    transfer.complete(code: done.result)
                    remove(transfer)
                }
                // With nothing running there is no deadline to check: libcurl's own timers, or a command, wake it.
                let wait = running.isEmpty ? Self.waitWhenIdle : endIdleTransfers()
                var ready: Int32 = 0
                _ = nal_curl_multi_poll(multi, Int32(wait), &ready)
            }
            // Transfers queued after the last round never started.
            let late = queue.withLock { queue in
                defer { queue.commands = [] }
                return queue.commands
            }
            for transfer in late { transfer.finish(.failure(.cancelled)) }
        }

        private func add(_ transfer: CurlTransfer) {
            guard !transfer.isFinished, let handle = transfer.handle else { return }
            let code = nal_curl_multi_add_handle(multi, handle)
            guard code == CurlValue.ok else {
                return transfer.finish(.failure(.transport(CurlCode.urlError(2, url: transfer.url))))
            }
            running[handle] = transfer
        }

        /// Lets a paused transfer receive again; libcurl may hand it the bytes it held at once.
        private func resumeNow(_ transfer: CurlTransfer) {
            guard let handle = transfer.handle, running[handle] != nil, transfer.isPaused else { return }
            transfer.resumeReceiving()
            _ = nal_curl_easy_pause(handle, CurlValue.resume)
        }

        /// Takes the transfer's handle out of the multi handle and frees it. The callbacks cannot run for it again.
        private func remove(_ transfer: CurlTransfer) {
            guard let handle = transfer.handle, running.removeValue(forKey: handle) != nil else { return }
            _ = nal_curl_multi_remove_handle(multi, handle)
            transfer.release()
        }

        /// Fails the transfers that have been idle past their timeout; returns how long to wait for the next
        /// deadline, in milliseconds.
        private func endIdleTransfers() -> Int {
            let now = ContinuousClock.now
            var wait = Duration.milliseconds(Self.longestWait)
            // A paused transfer waits for its consumer, which is not idleness. Not a copy of the running transfers
            // on every wake-up: only the idle ones are collected, then removed.
            var idle: [CurlTransfer] = []
            for transfer in running.values where !transfer.isPaused {
                let deadline = transfer.lastActivity + transfer.idleTimeout
                if deadline <= now {
                    idle.append(transfer)
                } else {
                    wait = min(wait, deadline - now)
                }
            }
            for transfer in idle {
                let seconds =
                    Double(transfer.idleTimeout.components.seconds)
                    + Double(transfer.idleTimeout.components.attoseconds) / 1e18
                let failure = NALError.timedOut(TimeoutFailure(limit: .idle, seconds: seconds, url: transfer.url))
                transfer.finish(.failure(failure))
                transfer.failStream(failure)
                remove(transfer)
            }
            let milliseconds = wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000
            return Int(max(1, milliseconds))
        }
    }
#endif
