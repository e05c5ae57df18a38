import NALLogging

/// Stored responses in memory, by URL, least recently used first out once they take more than `maximumBytes`.
/// Safe from any thread.
final class MemoryCacheStore: CacheStore {
    private struct Slot {
        /// The responses stored for one URL, one for each set of the values their `Vary` names; newest first.
        var variants: [CachedResponse]
        var lastUse: UInt64
        var cost: Int { variants.reduce(0) { $0 + $1.cost } }
    }

    private struct State {
        var slots: [String: Slot] = [:]
        var bytes = 0
        var clock: UInt64 = 0
    }

    let maximumBytes: Int
    private let state = Locked(State())

    init(maximumBytes: Int) {
        self.maximumBytes = max(0, maximumBytes)
    }

    /// The newest response stored for `key` that a request with `headers` selects, marking `key` used.
    func response(for key: String, matching headers: [String: String]) -> CachedResponse? {
        state.withLock { state in
            guard var slot = state.slots[key] else { return nil }
            state.clock += 1
            slot.lastUse = state.clock
            state.slots[key] = slot
            return slot.variants.first { $0.matches(headers) }
        }
    }

    /// Stores `response` for `key`, in place of any variant a request with the same `Vary` values selects. A
    /// response larger than the whole store is not kept (and drops the variant it would replace).
    func store(_ response: CachedResponse, for key: String) {
        state.withLock { state in
            var slot = state.slots.removeValue(forKey: key) ?? Slot(variants: [], lastUse: 0)
            state.bytes -= slot.cost
            let selector = Dictionary(
                response.varying.compactMap { item in item.value.map { (item.name, $0) } },
                uniquingKeysWith: { first, _ in first })
            slot.variants.removeAll { $0.varying.map(\.name) == response.varying.map(\.name) && $0.matches(selector) }
            if response.cost <= maximumBytes { slot.variants.insert(response, at: 0) }
            guard !slot.variants.isEmpty else { return }
            state.clock += 1
            slot.lastUse = state.clock
            state.bytes += slot.cost
            state.slots[key] = slot
            while state.bytes > maximumBytes, let oldest = state.slots.min(by: { $0.value.lastUse < $1.value.lastUse })
            {
                state.bytes -= oldest.value.cost
                state.slots[oldest.key] = nil
            }
        }
    }

    /// Replaces the stored variant at `index` of `key`'s list (a revalidated response's new head).
    func update(_ response: CachedResponse, for key: String, replacing old: CachedResponse) {
        state.withLock { state in
            guard var slot = state.slots[key],
                let index = slot.variants.firstIndex(where: {
                    $0.responseTime == old.responseTime && $0.varying.map(\.value) == old.varying.map(\.value)
                })
            else { return }
            state.bytes -= slot.cost
            slot.variants[index] = response
            state.bytes += slot.cost
            state.slots[key] = slot
        }
    }

    /// Removes what is stored for `key`.
    func remove(_ key: String) {
        state.withLock { state in
            if let slot = state.slots.removeValue(forKey: key) { state.bytes -= slot.cost }
        }
    }

    /// Removes everything.
    func removeAll() {
        state.withLock { $0 = State() }
    }

    /// How many responses are stored, and the bytes they take.
    var usage: (count: Int, bytes: Int) {
        state.withLock { state in (state.slots.values.reduce(0) { $0 + $1.variants.count }, state.bytes) }
    }
}
