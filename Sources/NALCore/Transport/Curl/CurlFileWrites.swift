#if os(Linux)
    import Dispatch
    import Foundation
    import NALLogging
    import Synchronization

    /// A download's writes to its file, off the event loop: the loop queues the bytes and goes on with every other
    /// transfer, and a queue of the download's own writes them. A slow disk holds back that download alone: past
    /// `highWater` bytes waiting, the transfer pauses until the writes are down to `lowWater`.
    final class CurlFileWrites: Sendable {
        private struct State: Sendable {
            var waiting = 0
            var failure: NALError?
            /// Queued bytes are dropped, not written: the call was cancelled.
            var dropsWrites = false
            /// What resumes the paused transfer once the writes have caught up.
            var onCapacity: (@Sendable () -> Void)?
        }

        /// Bytes waiting past which the transfer pauses, and down to which it resumes.
        static let highWater = 4 << 20
        static let lowWater = 1 << 20

        private let routing: any BodyRouting
        private let progress: ProgressReporter?
        private let probe: CurlDownloadWriteProbe?
        private let queue = DispatchQueue(label: "nal.curl.download")
        private let state = Locked(State())

        init(_ routing: any BodyRouting, progress: ProgressReporter?, probe: CurlDownloadWriteProbe? = nil) {
            self.routing = routing
            self.progress = progress
            self.probe = probe
        }

        /// Whether so many bytes wait that the transfer should pause.
        var isFull: Bool { state.withLock { $0.waiting >= Self.highWater } }

        /// The first write's failure (a full disk, a file that went away), if any.
        var failure: NALError? { state.withLock { $0.failure } }

        /// Queues `data` for the file; `false` once a write has failed (see `failure`) or the call was cancelled.
        func append(_ data: Data) -> Bool {
            let waiting = state.withLock { state -> Int? in
                guard state.failure == nil, !state.dropsWrites else { return nil }
                state.waiting += data.count
                return state.waiting
            }
            guard let waiting else { return false }
            probe?.noteWaiting(waiting)
            queue.async { [self] in
                let dropped = state.withLock { $0.failure != nil || $0.dropsWrites }
                if !dropped {
                    probe?.delayWrite()
                    do throws(NALError) {
                        try routing.write(data)
                        progress?.received(data.count)
                    } catch {
                        state.withLock { $0.failure = $0.failure ?? error }
                    }
                }
                let resume = state.withLock { state -> (@Sendable () -> Void)? in
                    state.waiting -= data.count
                    guard state.waiting <= Self.lowWater else { return nil }
                    defer { state.onCapacity = nil }
                    return state.onCapacity
                }
                resume?()
            }
            return true
        }

        /// Runs `resume` once the writes waiting are down to `lowWater` (at once if they are).
        func whenCaughtUp(_ resume: @escaping @Sendable () -> Void) {
            let now = state.withLock { state in
                guard state.waiting > Self.lowWater else { return true }
                state.onCapacity = resume
                return false
            }
            if now { resume() } else { probe?.pauses.add(1, ordering: .relaxed) }
        }

        /// The writes not yet made are dropped: the call was cancelled, and what it leaves must stop changing soon.
        func dropWaitingWrites() {
            state.withLock { $0.dropsWrites = true }
        }

        /// Runs `action` on the writes' queue once every write queued so far is done.
        func afterWrites(_ action: @escaping @Sendable () -> Void) {
            queue.async(execute: action)
        }
    }
#endif
