/// The order in which keys were last used, oldest first, for least-recently-used eviction. Every operation takes
/// amortised constant time: each use takes a new stamp, and the oldest key is found by walking the stamps upward,
/// each stamp passed once.
struct UseOrder<Key: Hashable & Sendable>: Sendable {
    private var stamps: [Key: UInt64] = [:]
    private var keys: [UInt64: Key] = [:]
    private var nextStamp: UInt64 = 0
    private var oldestStamp: UInt64 = 0

    /// Marks `key` as used now.
    mutating func use(_ key: Key) {
        if let stamp = stamps[key] { keys[stamp] = nil }
        stamps[key] = nextStamp
        keys[nextStamp] = key
        nextStamp += 1
    }

    mutating func remove(_ key: Key) {
        if let stamp = stamps.removeValue(forKey: key) { keys[stamp] = nil }
    }

    /// The key used least recently, or `nil` when there is none.
    mutating func oldest() -> Key? {
        while oldestStamp < nextStamp {
            if let key = keys[oldestStamp] { return key }
            oldestStamp += 1
        }
        return nil
    }

    mutating func removeAll() { self = UseOrder() }
}
