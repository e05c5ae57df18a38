import Foundation
import NALLogging

extension BodyChannel {
    /// Calls `observer` once when the body ends (at once if it has): finished, failed, or stopped by the consumer.
    func whenEnded(_ observer: @escaping @Sendable (Ending) -> Void) {
        let ending = state.withLock { state -> Ending? in
            if state.ending == nil { state.observers.append(observer) }
            return state.ending
        }
        if let ending { observer(ending) }
    }

    /// Makes `reader` the body's one reader if none is yet; `false` when another iterator reads it.
    func claim(by reader: ObjectIdentifier) -> Bool {
        state.withLock { state in
            if state.reader == nil { state.reader = reader }
            return state.reader == reader
        }
    }

    /// Whether `reader` is the iterator that reads the body.
    func isRead(by reader: ObjectIdentifier) -> Bool {
        state.withLock { $0.reader == reader }
    }

    /// The next chunk, or `nil` at the end; throws the body's failure, or `.cancelled` when the calling task is
    /// cancelled (which stops the body).
    func next() async throws(NALError) -> Data? {
        let taken: Taken
        if let immediate = state.withLock({ state -> Taken? in take(&state) }) {
            taken = immediate
        } else {
            taken = await withTaskCancellationHandler {
                await withUnsafeContinuation { (continuation: UnsafeContinuation<Taken, Never>) in
                    let ready = state.withLock { state -> Taken? in
                        if let ready = take(&state) { return ready }
                        // One consumer waits at a time (iterators claim the body; this catches one iterator shared
                        // by two tasks): the second fails at once and the first keeps its place.
                        guard state.consumer == nil else { return .ready(.failure(.streamAlreadyBeingRead)) }
                        state.consumer = continuation
                        return nil
                    }
                    if let ready { continuation.resume(returning: ready) }
                }
            } onCancel: {
                stop(with: .cancelled)
            }
        }
        switch taken {
        case .ready(let result):
            return try result.get()
        case .disk(let file, let extent):
            do {
                return try await file.read(extent)
            } catch {
                stop(with: error)
                throw error
            }
        }
    }

    /// Stops the body from the consumer's side: the transfer is cancelled, waiting chunks are dropped, and a
    /// waiting consumer gets `error`. Does nothing once the body has ended.
    func stop(with error: NALError) {
        let (cancel, consumer, wake, observers, ending) = state.withLock {
            state -> (
                (@Sendable () -> Void)?, UnsafeContinuation<Taken, Never>?, Bool,
                [@Sendable (Ending) -> Void], Ending?
            ) in
            guard state.stopped == nil else { return (nil, nil, false, [], nil) }
            state.stopped = error
            state.chunks = []
            state.head = 0
            state.buffered = 0
            state.spilled = 0
            state.spill = nil
            let consumer = state.consumer
            state.consumer = nil
            let wake = !state.capacityWaiters.isEmpty
            let cancel = state.producerEnd == nil ? state.onCancel : nil
            state.onCancel = nil
            var observers: [@Sendable (Ending) -> Void] = []
            var ending: Ending?
            if state.ending == nil {
                ending = Ending(byteCount: state.received, duration: .now - started, error: error)
                state.ending = ending
                observers = state.observers
                state.observers = []
            }
            return (cancel, consumer, wake, observers, ending)
        }
        if wake { releaseProducers() }
        cancel?()
        // Watchers hear of the end before the consumer does, so that a loop that has ended finds it logged.
        if let ending { for observer in observers { observer(ending) } }
        consumer?.resume(returning: .ready(.failure(error)))
    }

    /// Ends the body from the producer's side. Watchers hear of it before the consumer can see it: the end is
    /// published to the consumer only after they have run, so a loop that has ended finds its end logged.
    func end(with error: NALError?) {
        let (observers, ending) = state.withLock { state -> ([@Sendable (Ending) -> Void], Ending?) in
            guard state.stopped == nil, state.producerEnd == nil, state.ending == nil else { return ([], nil) }
            let ending = Ending(byteCount: state.received, duration: .now - started, error: error)
            state.ending = ending
            defer { state.observers = [] }
            return (state.observers, ending)
        }
        guard let ending else { return }
        for observer in observers { observer(ending) }
        let consumer = state.withLock { state -> UnsafeContinuation<Taken, Never>? in
            guard state.stopped == nil else { return nil }
            state.producerEnd = .some(error)
            state.onCancel = nil
            let consumer = state.head == state.chunks.count ? state.consumer : nil
            if consumer != nil { state.consumer = nil }
            return consumer
        }
        consumer?.resume(returning: .ready(error.map { .failure($0) } ?? .success(nil)))
    }

    /// Takes what the consumer can have now: a chunk, the end, or the failure; `nil` when it must wait.
    func take(_ state: inout State) -> Taken? {
        if let stopped = state.stopped { return .ready(.failure(stopped)) }
        if state.head < state.chunks.count {
            let piece = state.chunks[state.head]
            state.head += 1
            if state.head == state.chunks.count {
                state.chunks.removeAll(keepingCapacity: true)
                state.head = 0
            } else if state.head >= 64 {
                state.chunks.removeFirst(state.head)
                state.head = 0
            }
            switch piece {
            case .memory(let chunk):
                state.buffered -= chunk.count
                if state.buffered <= lowWater { wakeWaiters(&state) }
                return .ready(.success(chunk))
            case .disk(let file, let extent):
                state.spilled -= Int64(extent.count)
                // Caught up: the file goes once this read is done, and a later backlog starts a new, empty one.
                if state.spilled == 0 { state.spill = nil }
                return .disk(file, extent)
            }
        }
        if let end = state.producerEnd { return .ready(end.map { .failure($0) } ?? .success(nil)) }
        return nil
    }

    func wakeWaiters(_ state: inout State) {
        let waiters = state.capacityWaiters.values
        state.capacityWaiters = [:]
        for waiter in waiters { waiter.resume() }
    }

    func releaseProducers() {
        let waiters = state.withLock { state -> [UnsafeContinuation<Void, Never>] in
            defer { state.capacityWaiters = [:] }
            return Array(state.capacityWaiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }
}
