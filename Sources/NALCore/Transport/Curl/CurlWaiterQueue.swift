#if os(Linux)
    import Foundation

    /// Calls of one origin waiting in line, first come first served: those waiting for a transfer slot, or those
    /// waiting at the `Client`'s entrance (see `CurlAdmission`). The line is kept sorted by id, so that `withdraw`
    /// can bisect it: a call draws its id before it takes the lock that parks it, so two calls may park in the
    /// other order.
    struct CurlWaiterQueue: Sendable {
        /// The waiters, in the order they came, from `head` on; those before `head` have left.
        private var waiters: [CurlAdmission.Waiter] = []
        private var head = 0
        /// Waiters in `waiters[head...]` still waiting (not cancelled or timed out).
        private(set) var count = 0

        /// Adds `waiter` in the order of its id: at the end, but for a call that drew its id before the last one.
        mutating func append(_ waiter: CurlAdmission.Waiter) {
            var index = waiters.endIndex
            while index > head, waiters[index - 1].id > waiter.id { index -= 1 }
            waiters.insert(waiter, at: index)
            count += 1
        }

        /// Takes out the first waiter still waiting, and returns its continuation; `nil` when nobody waits.
        mutating func popFirst() -> CurlAdmission.Continuation? {
            while head < waiters.count {
                let continuation = waiters[head].continuation
                waiters[head].continuation = nil
                head += 1
                if let continuation {
                    count -= 1
                    compact()
                    return continuation
                }
            }
            compact()
            return nil
        }

        /// Takes the waiter `id` out of the line, found by bisection; returns its continuation, or `nil` when it is no
        /// longer waiting.
        mutating func withdraw(_ id: UInt64) -> CurlAdmission.Continuation? {
            var low = head
            var high = waiters.count
            while low < high {
                let middle = (low + high) / 2
                if waiters[middle].id < id { low = middle + 1 } else { high = middle }
            }
            guard low < waiters.count, waiters[low].id == id, let continuation = waiters[low].continuation else {
                return nil
            }
            waiters[low].continuation = nil
            count -= 1
            compact()
            return continuation
        }

        /// Takes out the waiters whose deadline has come, with the error each ends with, and lowers `earliestLeft` to
        /// the deadline of any that still waits.
        mutating func expire(
            now: ContinuousClock.Instant, earliestLeft: inout ContinuousClock.Instant?,
            into expired: inout [(CurlAdmission.Continuation, NALError?)]
        ) {
            for index in waiters.indices[head...] {
                guard let continuation = waiters[index].continuation else { continue }
                let waiter = waiters[index]
                if waiter.deadline <= now {
                    waiters[index].continuation = nil
                    count -= 1
                    expired.append((continuation, waiter.timeout))
                } else if earliestLeft.map({ waiter.deadline < $0 }) ?? true {
                    earliestLeft = waiter.deadline
                }
            }
            compact()
        }

        /// Takes out every waiter; their continuations are appended to `continuations`.
        mutating func removeAll(into continuations: inout [CurlAdmission.Continuation]) {
            continuations += waiters[head...].compactMap(\.continuation)
            waiters = []
            head = 0
            count = 0
        }

        /// Drops the waiters before `head` once they are half the line, so that it does not grow while calls keep
        /// coming.
        private mutating func compact() {
            if count == 0 {
                waiters.removeAll(keepingCapacity: false)
                head = 0
            } else if head > 32, head * 2 > waiters.count {
                waiters.removeFirst(head)
                head = 0
            }
        }
    }
#endif
