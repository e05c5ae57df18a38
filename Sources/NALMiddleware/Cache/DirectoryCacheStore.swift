import Dispatch
import Foundation
import NALLogging
import NALSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Stored responses in a folder, one file each, that a later process reads again.
///
/// - An entry is written to a new private file (0600) and renamed into place before `store` returns; a crash leaves
///   the old entry or the new one, and a torn or altered file fails its digest and is removed, never served.
/// - The folder's files (entries, the one being written, the salt) never take more than `maximumBytes`: room is
///   made, least recently used first, before a file is written.
/// - File names are salted digests of the URL, and the values of `Authorization`, `Cookie` and
///   `Proxy-Authorization` that a `Vary` names are kept only as salted digests: no credential is written in clear.
/// - The entries used last, up to a quarter of `maximumBytes` and at most 8 MiB, are also kept decoded in memory, as
///   `URLCache` keeps its memory capacity beside its disk capacity: a hit on one of them reads no file.
/// - All file work runs on one dispatch queue of the store's, never on Swift's cooperative pool. One store serves a
///   folder in a process (`HTTPCache`s made for the same folder share it); a lock file, held until the process
///   ends, keeps a second process out, whose cache then stores nothing (with a warning).
final class DirectoryCacheStore: CacheStore {
    let folder: URL
    let maximumBytes: Int
    private let queue = DispatchQueue(label: "NAL.HTTPCache.folder")
    /// Called with the folder after a new file is written whole and before it is renamed into place: the moment
    /// the folder holds the most. For tests.
    private let writeProbe: (@Sendable (URL) -> Void)?
    private let state = Locked(State())

    /// The request fields a `Vary` may name whose values are credentials.
    static let credentialFields: Set<String> = ["authorization", "cookie", "proxy-authorization"]

    private struct Entry {
        let name: String
        var bytes: Int
        var lastUse: UInt64
        /// The response, when it is among those kept in memory.
        var loaded: CachedResponse?
    }

    /// The most bytes of decoded entries kept in memory.
    let memoryBytes: Int

    private struct State {
        var opened = false
        var lock: Int32?
        var salt: [UInt8] = []
        /// Entries by key digest, newest first.
        var entries: [String: [Entry]] = [:]
        /// The bytes of the folder's files that the bound counts.
        var bytes = 0
        /// The bytes of the entries kept decoded in memory.
        var loadedBytes = 0
        var useClock: UInt64 = 0
    }

    private init(folder: URL, maximumBytes: Int, writeProbe: (@Sendable (URL) -> Void)?) {
        self.folder = folder.standardizedFileURL
        self.maximumBytes = max(0, maximumBytes)
        memoryBytes = min(self.maximumBytes / 4, 8 << 20)
        self.writeProbe = writeProbe
    }

    private struct Registration: Sendable {
        weak var store: DirectoryCacheStore?
    }

    private static let registry = Locked([String: Registration]())

    /// The folders whose lock this process holds, by path: kept until the process ends, so that a store made
    /// after another for the same folder went away never finds the lock still held by its own process.
    private static let heldLocks = Locked([String: Int32]())

    private static func processLock(for folder: URL) -> Int32? {
        heldLocks.withLock { held in
            if let descriptor = held[folder.path] { return descriptor }
            guard let descriptor = CacheFolder.lock(folder) else { return nil }
            held[folder.path] = descriptor
            return descriptor
        }
    }

    /// The process's store for `folder`: the one already open, or a new one bounded by `maximumBytes`.
    static func shared(
        folder: URL, maximumBytes: Int, writeProbe: (@Sendable (URL) -> Void)? = nil
    ) -> DirectoryCacheStore {
        registry.withLock { registry in
            let path = folder.standardizedFileURL.path
            if let store = registry[path]?.store {
                if store.maximumBytes != maximumBytes {
                    MiddlewareLog.middleware.notice(
                        "HTTPCache: the folder \(path) is already open in this process with maximumBytes \(store.maximumBytes), which stays its bound"
                    )
                }
                return store
            }
            let store = DirectoryCacheStore(folder: folder, maximumBytes: maximumBytes, writeProbe: writeProbe)
            registry[path] = Registration(store: store)
            return store
        }
    }

    // MARK: - CacheStore

    func response(for key: String, matching headers: [String: String]) async -> CachedResponse? {
        switch fromMemory(key, matching: headers) {
        case .found(let response): return response
        case .absent: return nil
        case .unknown: return await onQueue { store in store.read(key, matching: headers) }
        }
    }

    private enum MemoryAnswer {
        case found(CachedResponse)
        /// Every entry of the key is in memory, and none matches.
        case absent
        /// The files must be read.
        case unknown
    }

    /// The answer from the entries kept in memory, without touching a file.
    private func fromMemory(_ key: String, matching headers: [String: String]) -> MemoryAnswer {
        guard let salt = state.withLock({ $0.lock != nil ? $0.salt : nil }) else { return .unknown }
        let digest = digest(key, salt: salt)
        let protectedHeaders = protected(headers, salt: salt)
        return state.withLock { state in
            guard let candidates = state.entries[digest] else { return .absent }
            for (index, entry) in candidates.enumerated() {
                guard let response = entry.loaded else { return .unknown }
                guard response.matches(protectedHeaders) else { continue }
                state.useClock += 1
                state.entries[digest]?[index].lastUse = state.useClock
                return .found(response)
            }
            return .absent
        }
    }

    func store(_ response: CachedResponse, for key: String) async {
        await onQueue { store in
            guard store.open() else { return }
            var protected = response
            protected.varying = response.varying.map {
                (name: $0.name, value: store.protectedValue($0.value, of: $0.name))
            }
            store.write(protected, for: key)
        }
    }

    func update(_ response: CachedResponse, for key: String, replacing old: CachedResponse) async {
        // `old` came from this store, so its Vary values (which `response` keeps) are already protected.
        await onQueue { store in
            guard store.open() else { return }
            store.write(response, for: key)
        }
    }

    func remove(_ key: String) async {
        await onQueue { store in
            guard store.open() else { return }
            let digest = store.digest(key)
            let removed = store.state.withLock { $0.entries.removeValue(forKey: digest) ?? [] }
            for entry in removed { store.delete(entry) }
        }
    }

    func removeAll() async {
        await onQueue { store in
            guard store.open() else { return }
            let removed = store.state.withLock { state in
                defer { state.entries = [:] }
                return state.entries.values.flatMap { $0 }
            }
            for entry in removed { store.delete(entry) }
        }
    }

    /// How many responses are stored, and the bytes the bound counts.
    var usage: (count: Int, bytes: Int) {
        get async {
            await onQueue { store in
                _ = store.open()
                return store.state.withLock { state in (state.entries.values.reduce(0) { $0 + $1.count }, state.bytes) }
            }
        }
    }

    // MARK: - On the queue

    private func onQueue<Value: Sendable>(_ work: @escaping @Sendable (DirectoryCacheStore) -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: work(self)) }
        }
    }

    /// Opens the folder once: creates it, takes its lock, reads its salt and its entries; `false` when it cannot
    /// be used.
    private func open() -> Bool {
        if state.withLock({ $0.opened }) { return state.withLock { $0.lock != nil } }
        state.withLock { $0.opened = true }
        guard CacheFolder.prepare(folder) else {
            MiddlewareLog.middleware.warning(
                "HTTPCache: the folder \(folder.path) cannot be created or is not a folder of this user's; nothing is cached there"
            )
            return false
        }
        guard let lock = Self.processLock(for: folder) else {
            MiddlewareLog.middleware.warning(
                "HTTPCache: another process uses the cache folder \(folder.path); this process caches nothing there")
            return false
        }
        guard let salt = CacheFolder.salt(in: folder) else {
            MiddlewareLog.middleware.warning(
                "HTTPCache: the folder \(folder.path) cannot be written; nothing is cached")
            return false
        }
        var entries: [String: [(Entry, Date)]] = [:]
        var bytes = salt.count
        for item in CacheFolder.items(in: folder) {
            if item.name.hasPrefix(Self.temporaryPrefix) {
                // Left by a process that stopped mid-write.
                CacheFolder.remove(folder.appendingPathComponent(item.name))
                continue
            }
            guard item.name.hasSuffix(Self.entrySuffix), let dash = item.name.firstIndex(of: "-") else { continue }
            let digest = String(item.name[..<dash])
            entries[digest, default: []].append((Entry(name: item.name, bytes: item.bytes, lastUse: 0), item.modified))
            bytes += item.bytes
        }
        // The most recently written first, and used least recently in that order.
        var ordered: [String: [Entry]] = [:]
        let byAge = entries.flatMap { digest, list in list.map { (digest, $0.0, $0.1) } }.sorted { $0.2 < $1.2 }
        var clock: UInt64 = 0
        for (digest, entry, _) in byAge {
            clock += 1
            var used = entry
            used.lastUse = clock
            ordered[digest, default: []].insert(used, at: 0)
        }
        state.withLock { state in
            state.lock = lock
            state.salt = salt
            state.entries = ordered
            state.bytes = bytes
            state.useClock = clock
        }
        makeRoom(for: 0)
        return true
    }

    static let entrySuffix = ".entry"
    static let temporaryPrefix = ".tmp-"

    private func read(_ key: String, matching headers: [String: String]) -> CachedResponse? {
        guard open() else { return nil }
        let digest = digest(key)
        let candidates = state.withLock { $0.entries[digest] ?? [] }
        guard !candidates.isEmpty else { return nil }
        let protectedHeaders = protected(headers, salt: state.withLock { $0.salt })
        for entry in candidates {
            let response: CachedResponse
            if let loaded = entry.loaded {
                response = loaded
            } else {
                guard let bytes = CacheFolder.contents(of: file(entry.name), atMost: maximumBytes),
                    let decoded = CacheEntryFile.decode(bytes, keyDigest: digest)
                else {
                    drop(entry, digest: digest)
                    continue
                }
                response = decoded
            }
            state.withLock { state in
                guard let index = state.entries[digest]?.firstIndex(where: { $0.name == entry.name }) else { return }
                if entry.loaded == nil { keepLoaded(response, at: index, digest: digest, in: &state) }
                if response.matches(protectedHeaders) {
                    state.useClock += 1
                    state.entries[digest]?[index].lastUse = state.useClock
                }
            }
            if response.matches(protectedHeaders) { return response }
        }
        return nil
    }

    /// Writes `response` as `key`'s entry for its Vary values, replacing the one there.
    private func write(_ response: CachedResponse, for key: String) {
        let digest = digest(key)
        let selector = response.varying.map { "\($0.name)\u{0}\($0.value.map { "+" + $0 } ?? "-")" }
            .joined(separator: "\u{0}")
        let name = "\(digest)-\(hash(selector, salt: state.withLock { $0.salt }).prefix(24))\(Self.entrySuffix)"
        let bytes = CacheEntryFile.encode(response, keyDigest: digest)
        let replaced = state.withLock { $0.entries[digest]?.first { $0.name == name } }
        guard bytes.count <= maximumBytes - state.withLock({ $0.salt.count }) else {
            // Too large for the folder: the entry it would replace is out of date, so it goes too.
            if let replaced { drop(replaced, digest: digest) }
            return
        }
        makeRoom(for: bytes.count, sparing: name)
        let temporary = folder.appendingPathComponent(Self.temporaryPrefix + UUID().uuidString)
        state.withLock { $0.bytes += bytes.count }
        let written = CacheFolder.writeNew(bytes, to: temporary)
        if written { writeProbe?(folder) }
        guard written,
            CacheFolder.replace(folder.appendingPathComponent(name), with: temporary)
        else {
            CacheFolder.remove(temporary)
            state.withLock { $0.bytes -= bytes.count }
            if let replaced { drop(replaced, digest: digest) }
            return
        }
        state.withLock { state in
            var list = state.entries[digest] ?? []
            if let index = list.firstIndex(where: { $0.name == name }) {
                state.bytes -= list[index].bytes
                state.loadedBytes -= list[index].loaded?.cost ?? 0
                list.remove(at: index)
            }
            state.useClock += 1
            list.insert(Entry(name: name, bytes: bytes.count, lastUse: state.useClock), at: 0)
            state.entries[digest] = list
            keepLoaded(response, at: 0, digest: digest, in: &state)
        }
    }

    /// Removes least recently used entries until `incoming` more bytes fit, keeping `sparing` (the entry about to be
    /// replaced, whose bytes leave when its replacement arrives) to the last.
    private func makeRoom(for incoming: Int, sparing: String? = nil) {
        while true {
            let victim: (String, Entry)? = state.withLock { state in
                guard state.bytes + incoming > maximumBytes else { return nil }
                let candidates = state.entries.flatMap { digest, list in list.map { (digest, $0) } }
                return candidates.filter { $0.1.name != sparing }.min { $0.1.lastUse < $1.1.lastUse }
                    ?? candidates.first
            }
            guard let (digest, entry) = victim else { return }
            drop(entry, digest: digest)
        }
    }

    /// Keeps `response`, the entry at `index` of `digest`'s list, decoded in memory, making room there least
    /// recently used first.
    private func keepLoaded(_ response: CachedResponse, at index: Int, digest: String, in state: inout State) {
        let cost = response.cost
        guard cost <= memoryBytes, state.entries[digest]?[index].loaded == nil else { return }
        state.entries[digest]?[index].loaded = response
        state.loadedBytes += cost
        while state.loadedBytes > memoryBytes {
            let loaded = state.entries.flatMap { key, list in
                list.indices.compactMap { list[$0].loaded == nil ? nil : (key, $0, list[$0].lastUse) }
            }
            guard let oldest = loaded.min(by: { $0.2 < $1.2 }) else { return }
            state.loadedBytes -= state.entries[oldest.0]?[oldest.1].loaded?.cost ?? 0
            state.entries[oldest.0]?[oldest.1].loaded = nil
        }
    }

    /// Forgets `entry` and deletes its file.
    private func drop(_ entry: Entry, digest: String) {
        state.withLock { state in
            guard let index = state.entries[digest]?.firstIndex(where: { $0.name == entry.name }) else { return }
            let removed = state.entries[digest]?.remove(at: index)
            if state.entries[digest]?.isEmpty == true { state.entries[digest] = nil }
            state.bytes -= entry.bytes
            state.loadedBytes -= removed?.loaded?.cost ?? 0
        }
        CacheFolder.remove(file(entry.name))
    }

    /// Deletes the file of an entry already taken out of the index.
    private func delete(_ entry: Entry) {
        state.withLock { state in
            state.bytes -= entry.bytes
            state.loadedBytes -= entry.loaded?.cost ?? 0
        }
        CacheFolder.remove(file(entry.name))
    }

    /// The file of the entry named `name`.
    private func file(_ name: String) -> URL {
        URL(fileURLWithPath: folder.path + "/" + name, isDirectory: false)
    }

    /// The salted digest of `key`, as file names start.
    private func digest(_ key: String, salt: [UInt8]? = nil) -> String {
        String(hash(key, salt: salt ?? state.withLock { $0.salt }).prefix(40))
    }

    /// A Vary value as it is kept: credentials as salted digests.
    private func protectedValue(_ value: String?, of name: String, salt: [UInt8]? = nil) -> String? {
        guard let value, Self.credentialFields.contains(name.lowercased()) else { return value }
        return "sha256:" + hash(value, salt: salt ?? state.withLock { $0.salt })
    }

    /// `headers` with the values of credentials as they are kept.
    private func protected(_ headers: [String: String], salt: [UInt8]) -> [String: String] {
        var protected = headers
        for (name, value) in headers where Self.credentialFields.contains(name.lowercased()) {
            protected[name] = protectedValue(value, of: name, salt: salt)
        }
        return protected
    }

    private func hash(_ text: String, salt: [UInt8]) -> String {
        var hasher = SHA256()
        hasher.update(salt)
        hasher.update(Array(text.utf8))
        return hasher.finalizeHex()
    }
}
