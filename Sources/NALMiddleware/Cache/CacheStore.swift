/// Where an `HTTPCache` keeps its responses: in memory or in a folder.
protocol CacheStore: Sendable {
    /// The newest response stored for `key` that a request with `headers` selects (its `Vary` values match).
    func response(for key: String, matching headers: [String: String]) async -> CachedResponse?

    /// Stores `response` for `key`, in place of the variant that a request with its `Vary` values selects; it is
    /// kept by the time this returns. `false` when it was not kept (too large, a folder that cannot be written).
    @discardableResult
    func store(_ response: CachedResponse, for key: String) async -> Bool

    /// Replaces `old`, a response this store returned, with `response` (its head updated by a 304).
    func update(_ response: CachedResponse, for key: String, replacing old: CachedResponse) async

    /// Removes what is stored for `key`.
    func remove(_ key: String) async

    /// Removes everything.
    func removeAll() async
}
