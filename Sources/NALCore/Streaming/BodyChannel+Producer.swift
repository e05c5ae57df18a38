import Foundation
import NALLogging

extension BodyChannel {
    /// Adds a chunk; `false` when the body was stopped and the transfer should end. Never drops: a chunk over the
    /// bound is kept (in memory, or in the spill file when the channel spills), and a producer that can wait is
    /// expected to wait for capacity before the next.
    @discardableResult
    func append(_ data: Data) -> Bool {
        guard !data.isEmpty else { return isActive }
        enum Step {
            case refused
            case handed(UnsafeContinuation<Taken, Never>)
            case kept
            case spill(SpillFile?)
        }
        let step = state.withLock { state -> Step in
            guard state.stopped == nil, state.producerEnd == nil else { return .refused }
            if let consumer = state.consumer {
                state.consumer = nil
                state.received += Int64(data.count)
                return .handed(consumer)
            }
            // Once bytes wait on disk, later ones follow them there until the consumer has caught up, so that
            // memory is used only at the front of the line.
            if spillsToDisk, state.buffered >= highWater || state.spilled > 0 { return .spill(state.spill) }
            state.received += Int64(data.count)
            state.chunks.append(.memory(data))
            state.buffered += data.count
            return .kept
        }
        switch step {
        case .refused: return false
        case .handed(let consumer):
            consumer.resume(returning: .ready(.success(data)))
            return true
        case .kept: return true
        case .spill(let file): return spill(data, into: file)
        }
    }

    /// Writes `data` to the spill file (created on first use) outside the lock, then queues its range.
    func spill(_ data: Data, into existing: SpillFile?) -> Bool {
        let file: SpillFile
        let extent: SpillFile.Extent
        do throws(NALError) {
            if let existing { file = existing } else { file = try SpillFile() }
            extent = try file.append(data)
        } catch {
            // What arrived before is kept: the consumer gets it, then the error.
            end(with: error)
            return false
        }
        enum Step {
            case refused
            case tooLarge
            case handed(UnsafeContinuation<Taken, Never>)
            case kept
        }
        let step = state.withLock { state -> Step in
            guard state.stopped == nil, state.producerEnd == nil else { return .refused }
            guard state.spilled + Int64(data.count) <= maximumSpilled else { return .tooLarge }
            state.spill = file
            state.received += Int64(data.count)
            if let consumer = state.consumer {
                state.consumer = nil
                return .handed(consumer)
            }
            state.spilled += Int64(data.count)
            // Neighbouring ranges are read as one, up to a few hundred KiB.
            if case .disk(let lastFile, var last)? = state.chunks.last, state.head < state.chunks.count,
                lastFile === file, last.offset + Int64(last.count) == extent.offset,
                last.count + extent.count <= Self.largestRead
            {
                last.count += extent.count
                state.chunks[state.chunks.count - 1] = .disk(file, last)
            } else {
                state.chunks.append(.disk(file, extent))
            }
            return .kept
        }
        switch step {
        case .refused: return false
        case .tooLarge:
            end(with: .responseTooLarge(limit: Int(clamping: maximumSpilled), url: nil))
            return false
        case .handed(let consumer):
            consumer.resume(returning: .disk(file, extent))
            return true
        case .kept: return true
        }
    }

    /// The most bytes read from the spill file at once: what a lagging consumer gets in one piece at most.
    package static let largestRead = 256 << 10

    /// Whether the bytes waiting for the consumer have reached the bound.
    var isFull: Bool { state.withLock { $0.buffered >= highWater && $0.stopped == nil } }

    /// The bytes waiting for the consumer, in memory and in the spill file.
    package var waiting: (memory: Int, disk: Int64) { state.withLock { ($0.buffered, $0.spilled) } }

    /// The name the spill file had before it was unlinked, while the body has one.
    package var spillFileName: String? { state.withLock { $0.spill?.url.lastPathComponent } }

    /// Whether the body still takes chunks: not finished and not stopped.
    var isActive: Bool { state.withLock { $0.stopped == nil && $0.producerEnd == nil } }

    /// Waits in a task until the consumer has taken most of what waits, or the body was stopped.
    /// Returns at once when the calling task is cancelled.
    func awaitCapacity() async {
        let waiter = state.withLock { state -> Int in
            defer { state.nextWaiter &+= 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                let waits = state.withLock { state -> Bool in
                    guard state.buffered >= highWater, state.stopped == nil,
                        state.cancelledWaiters.remove(waiter) == nil
                    else { return false }
                    state.capacityWaiters[waiter] = continuation
                    return true
                }
                if !waits { continuation.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { state -> UnsafeContinuation<Void, Never>? in
                if let continuation = state.capacityWaiters.removeValue(forKey: waiter) { return continuation }
                state.cancelledWaiters.insert(waiter)
                return nil
            }
            continuation?.resume()
        }
        // A cancellation that came after the wait ended leaves nothing behind.
        state.withLock { _ = $0.cancelledWaiters.remove(waiter) }
    }

    /// Ends the body normally: the consumer gets the chunks that wait, then the end.
    func finish() {
        end(with: nil)
    }

    /// Ends the body with `error`, delivered after the chunks that wait.
    func finish(throwing error: NALError) {
        end(with: error)
    }

    /// Says how to stop the transfer when the consumer stops; runs at once if it already has.
    func onCancel(_ cancel: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            guard state.stopped == nil else { return state.producerEnd == nil }
            state.onCancel = cancel
            return false
        }
        if runNow { cancel() }
    }
}
