import NALLogging

/// Stored responses in memory, by URL, least recently used first out once they take more than `maximumBytes`.
/// Safe from any thread.
final class MemoryCacheStore: CacheStore {
    private struct State {
        /// The responses stored for each URL, one for each set of the values their `Vary` names; newest first.
        var slots: [String: [CachedResponse]] = [:]
        var order = UseOrder<String>()
        var bytes = 0
    }

    let maximumBytes: Int
    private let state = Locked(State())

    /// The most responses kept for one URL, newest first.
    static let mostVariants = 32

    init(maximumBytes: Int) {
        self.maximumBytes = max(0, maximumBytes)
    }

    /// The newest response stored for `key` that a request with `headers` selects, marking `key` used.
    func response(for key: String, matching headers: [String: String]) -> CachedResponse? {
        state.withLock { state in
            guard let variants = state.slots[key] else { return nil }
            state.order.use(key)
            return variants.first { $0.matches(headers) }
        }
    }

    /// Stores `response` for `key`, in place of any variant a request with the same `Vary` values selects. A
    /// response larger than the whole store is not kept (and drops the variant it would replace).
    @discardableResult
    func store(_ response: CachedResponse, for key: String) -> Bool {
        guard response.cost <= maximumBytes else {
            // Too large to keep: the variant it would replace is out of date, so it goes too.
            state.withLock { state in
                guard var variants = state.slots.removeValue(forKey: key) else { return }
                state.bytes -= Self.cost(of: variants)
                variants.removeAll {
                    $0.varying.map(\.name) == response.varying.map(\.name) && $0.matches(Self.selector(of: response))
                }
                if variants.isEmpty {
                    state.order.remove(key)
                } else {
                    state.bytes += Self.cost(of: variants)
                    state.slots[key] = variants
                }
            }
            return false
        }
        state.withLock { state in
            var variants = state.slots.removeValue(forKey: key) ?? []
            state.bytes -= Self.cost(of: variants)
            let selector = Self.selector(of: response)
            variants.removeAll { $0.varying.map(\.name) == response.varying.map(\.name) && $0.matches(selector) }
            variants.insert(response, at: 0)
            // A Vary on a field that differs on every request (an ID, a time) would make one URL's list endless.
            if variants.count > Self.mostVariants { variants.removeLast(variants.count - Self.mostVariants) }
            state.bytes += Self.cost(of: variants)
            state.slots[key] = variants
            state.order.use(key)
            Self.evict(&state, toFit: maximumBytes)
        }
        return true
    }

    /// The request fields a request must have to select `response`.
    private static func selector(of response: CachedResponse) -> [String: String] {
        Dictionary(
            response.varying.compactMap { item in item.value.map { (item.name, $0) } },
            uniquingKeysWith: { first, _ in first })
    }

    /// Replaces `old` among `key`'s variants with `response` (a revalidated response's new head); nothing when
    /// `old` is no longer stored (another call replaced it meanwhile).
    func update(_ response: CachedResponse, for key: String, replacing old: CachedResponse) {
        state.withLock { state in
            guard var variants = state.slots[key],
                let index = variants.firstIndex(where: {
                    $0.responseTime == old.responseTime && $0.varying.map(\.value) == old.varying.map(\.value)
                })
            else { return }
            state.bytes -= Self.cost(of: variants)
            variants[index] = response
            // A 304 may bring fields enough to make the response too large to keep.
            if response.cost > maximumBytes { variants.remove(at: index) }
            state.bytes += Self.cost(of: variants)
            state.slots[key] = variants.isEmpty ? nil : variants
            if variants.isEmpty { state.order.remove(key) }
            Self.evict(&state, toFit: maximumBytes)
        }
    }

    /// Removes what is stored for `key`.
    func remove(_ key: String) {
        state.withLock { state in
            state.bytes -= Self.cost(of: state.slots.removeValue(forKey: key) ?? [])
            state.order.remove(key)
        }
    }

    /// Removes everything.
    func removeAll() {
        state.withLock { $0 = State() }
    }

    private static func cost(of variants: [CachedResponse]) -> Int { variants.reduce(0) { $0 + $1.cost } }

    /// Removes the least recently used URLs until the store takes at most `maximumBytes`.
    private static func evict(_ state: inout State, toFit maximumBytes: Int) {
        while state.bytes > maximumBytes, let oldest = state.order.oldest() {
            state.bytes -= cost(of: state.slots.removeValue(forKey: oldest) ?? [])
            state.order.remove(oldest)
        }
    }
}
