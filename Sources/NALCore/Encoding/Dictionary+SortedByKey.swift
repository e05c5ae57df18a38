extension Dictionary where Key == String {
    /// Entries in key order, the order every NAL encoder writes them in so that output is deterministic.
    var sortedByKey: [(key: String, value: Value)] {
        sorted { $0.key < $1.key }
    }

    /// Calls `body` for each entry in key order. The order is kept as dictionary indices in a stack buffer, so
    /// walking a small dictionary allocates nothing and copies no value it does not visit.
    @inline(__always)
    func forEachSortedByKey<Failure: Error>(_ body: (String, Value) throws(Failure) -> Void) throws(Failure) {
        switch count {
        case 0:
            return
        case 1:
            for (key, value) in self { try body(key, value) }
            return
        default:
            break
        }
        var failure: Failure?
        withUnsafeTemporaryAllocation(of: Index.self, capacity: count) { order in
            var filled = 0
            var index = startIndex
            while index != endIndex {
                order.initializeElement(at: filled, to: index)
                filled += 1
                formIndex(after: &index)
            }
            var sorted = UnsafeMutableBufferPointer(rebasing: order[..<filled])
            if filled <= 16 {
                // Insertion sort: parameters are a handful of keys, where the standard sort's set-up dominates.
                for position in 1..<filled {
                    let moving = sorted[position]
                    let key = keys[moving]
                    var slot = position
                    while slot > 0, key < keys[sorted[slot - 1]] {
                        sorted[slot] = sorted[slot - 1]
                        slot -= 1
                    }
                    sorted[slot] = moving
                }
            } else {
                sorted.sort { self.keys[$0] < self.keys[$1] }
            }
            for position in 0..<filled {
                let entry = self[order[position]]
                do throws(Failure) {
                    try body(entry.key, entry.value)
                } catch {
                    failure = error
                    break
                }
            }
            _ = UnsafeMutableBufferPointer(rebasing: order[..<filled]).deinitialize()
        }
        if let failure { throw failure }
    }
}
