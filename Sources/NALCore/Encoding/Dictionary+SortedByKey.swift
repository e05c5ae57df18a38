extension Dictionary where Key == String {
    /// Calls `body` for each entry in key order. The order is kept as dictionary indices in a stack buffer, sorted
    /// by `KeyOrder`, so walking a small dictionary allocates nothing and copies no value it does not visit.
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
        withUnsafeTemporaryAllocation(of: KeyOrder<Index>.self, capacity: count) { order in
            var filled = 0
            var index = startIndex
            while index != endIndex {
                order.initializeElement(at: filled, to: KeyOrder(keys[index], at: index))
                filled += 1
                formIndex(after: &index)
            }
            let sorted = UnsafeMutableBufferPointer(rebasing: order[..<filled])
            KeyOrder.sort(sorted) { self.keys[$0] }
            for position in 0..<filled {
                let entry = self[sorted[position].position]
                do throws(Failure) {
                    try body(entry.key, entry.value)
                } catch {
                    failure = error
                    break
                }
            }
            _ = sorted.deinitialize()
        }
        if let failure { throw failure }
    }
}
