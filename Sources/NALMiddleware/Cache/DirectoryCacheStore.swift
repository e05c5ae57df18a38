import Dispatch
import Foundation
import NALCore
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
/// - An entry is written to a new private file (0600) and renamed into place before `store` returns (written to
///   the file system, not synced to the device: a power cut may lose the latest entries, never serve a torn one).
///   A file that fails its digest (torn, or changed by anything but this store) is removed, never served.
/// - The sizes of the folder's files (entries, the one being written, the salt) never add up to more than
///   `maximumBytes`: room is made, least recently used first, before a file is written.
/// - File names are salted digests of the URL, and the values of the credentials a `Vary` names (every field
///   `SensitiveData.current` names: `Authorization`, `Cookie`, `Proxy-Authorization`, API keys…) are kept only as
///   salted digests: no credential is written in clear.
/// - The entries used last, up to a quarter of `maximumBytes` and at most 8 MiB, are also kept decoded in memory, as
///   `URLCache` keeps its memory capacity beside its disk capacity: a hit on one of them reads no file.
/// - All file work runs on one dispatch queue of the store's, never on Swift's cooperative pool. One store serves a
///   folder in a process (`HTTPCache`s made for the same folder share it, with the first one's bound); a lock file,
///   held until the process ends, keeps a second process out, whose cache then stores nothing (with a warning).
final class DirectoryCacheStore: CacheStore {
    let folder: URL
    let maximumBytes: Int
    /// The most bytes of decoded entries kept in memory.
    let memoryBytes: Int
    private let queue = DispatchQueue(label: "NAL.HTTPCache.folder")
    /// Called with the folder after a new file is written whole and before it is renamed into place: the moment
    /// the folder holds the most. For tests.
    private let writeProbe: (@Sendable (URL) -> Void)?
    private let state = Locked(State())

    private struct Entry {
        let name: String
        var bytes: Int
        /// The response, when it is among those kept in memory.
        var loaded: CachedResponse?
    }

    private struct State {
        var opened = false
        var usable = false
        var salt: [UInt8] = []
        /// Entries by key digest, newest first.
        var entries: [String: [Entry]] = [:]
        /// Entry file names, least recently used first; and those kept in memory.
        var order = UseOrder<String>()
        var loadedOrder = UseOrder<String>()
        /// The bytes of the folder's files that the bound counts.
        var bytes = 0
        /// The bytes of the entries kept decoded in memory.
        var loadedBytes = 0
    }

    private init(folder: URL, maximumBytes: Int, writeProbe: (@Sendable (URL) -> Void)?) {
        self.folder = folder
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

    /// The process's store for `folder`: the one already open, or a new one bounded by `maximumBytes`. Links in the
    /// path are resolved first, so that two spellings of one folder share one store.
    static func shared(
        folder: URL, maximumBytes: Int, writeProbe: (@Sendable (URL) -> Void)? = nil
    ) -> DirectoryCacheStore {
        let resolved = folder.standardizedFileURL.resolvingSymlinksInPath()
        return registry.withLock { registry in
            let path = resolved.path
            if let store = registry[path]?.store {
                if store.maximumBytes != max(0, maximumBytes) {
                    MiddlewareLog.middleware.notice(
                        "HTTPCache: the folder \(path) is already open in this process with maximumBytes \(store.maximumBytes), which stays its bound"
                    )
                }
                return store
            }
            registry = registry.filter { $0.value.store != nil }
            let store = DirectoryCacheStore(folder: resolved, maximumBytes: maximumBytes, writeProbe: writeProbe)
            registry[path] = Registration(store: store)
            return store
        }
    }

    private static func processLock(for folder: URL) -> Int32? {
        heldLocks.withLock { held in
            if let descriptor = held[folder.path] { return descriptor }
            guard let descriptor = CacheFolder.lock(folder) else { return nil }
            held[folder.path] = descriptor
            return descriptor
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

    @discardableResult
    func store(_ response: CachedResponse, for key: String) async -> Bool {
        await onQueue { store in
            guard store.open() else { return false }
            let salt = store.state.withLock { $0.salt }
            var protected = response
            protected.varying = response.varying.map {
                (name: $0.name, value: Self.protectedValue($0.value, of: $0.name, salt: salt))
            }
            return store.write(protected, for: key)
        }
    }

    func update(_ response: CachedResponse, for key: String, replacing old: CachedResponse) async {
        // `old` came from this store, so its Vary values (which `response` keeps) are already protected.
        await onQueue { store in
            guard store.open() else { return }
            let digest = store.digest(key)
            let name = store.entryName(digest: digest, varying: old.varying)
            // Only if `old` is still the entry: another call may have stored a newer response meanwhile.
            guard let current = store.state.withLock({ $0.entries[digest]?.first { $0.name == name } }),
                let stored = current.loaded ?? store.decoded(current, digest: digest),
                stored.responseTime == old.responseTime
            else { return }
            store.write(response, for: key)
        }
    }

    func remove(_ key: String) async {
        await onQueue { store in
            guard store.open() else { return }
            let digest = store.digest(key)
            for entry in store.state.withLock({ $0.entries[digest] ?? [] }) { store.drop(entry, digest: digest) }
        }
    }

    func removeAll() async {
        await onQueue { store in
            guard store.open() else { return }
            let all = store.state.withLock { state in
                state.entries.flatMap { digest, list in list.map { (digest, $0) } }
            }
            for (digest, entry) in all { store.drop(entry, digest: digest) }
        }
    }

    // MARK: - Without the queue

    private enum MemoryAnswer {
        case found(CachedResponse)
        /// Every entry of the key is in memory, and none matches.
        case absent
        /// The files must be read.
        case unknown
    }

    /// The answer from the entries kept in memory, without touching a file.
    private func fromMemory(_ key: String, matching headers: [String: String]) -> MemoryAnswer {
        guard let salt = state.withLock({ $0.usable ? $0.salt : nil }) else { return .unknown }
        let digest = Self.digest(key, salt: salt)
        let protectedHeaders = Self.protected(headers, salt: salt)
        return state.withLock { state in
            guard let candidates = state.entries[digest] else { return .absent }
            for entry in candidates {
                guard let response = entry.loaded else { return .unknown }
                guard response.matches(protectedHeaders) else { continue }
                state.order.use(entry.name)
                state.loadedOrder.use(entry.name)
                return .found(response)
            }
            return .absent
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
        let (opened, usable) = state.withLock { ($0.opened, $0.usable) }
        if opened { return usable }
        state.withLock { $0.opened = true }
        switch CacheFolder.prepare(folder) {
        case .ready: break
        case .unusable(let reason):
            MiddlewareLog.middleware.warning(
                "HTTPCache: the folder \(folder.path) \(reason, privacy: .public); nothing is cached there")
            return false
        }
        guard Self.processLock(for: folder) != nil else {
            MiddlewareLog.middleware.warning(
                "HTTPCache: another process uses the cache folder \(folder.path); this process caches nothing there")
            return false
        }
        guard let salt = CacheFolder.salt(in: folder) else {
            MiddlewareLog.middleware.warning(
                "HTTPCache: the folder \(folder.path) cannot be written; nothing is cached there")
            return false
        }
        var found: [(digest: String, entry: Entry, modified: Date)] = []
        var bytes = salt.count
        for item in CacheFolder.items(in: folder) {
            if item.name.hasPrefix(Self.temporaryPrefix) {
                // Left by a process that stopped mid-write.
                CacheFolder.remove(file(item.name))
                continue
            }
            guard item.name.hasSuffix(Self.entrySuffix), let dash = item.name.firstIndex(of: "-") else { continue }
            found.append((String(item.name[..<dash]), Entry(name: item.name, bytes: item.bytes), item.modified))
            bytes += item.bytes
        }
        state.withLock { state in
            // The most recently written are the newest of their URL and the most recently used.
            for (digest, entry, _) in found.sorted(by: { $0.modified < $1.modified }) {
                state.entries[digest, default: []].insert(entry, at: 0)
                state.order.use(entry.name)
            }
            state.salt = salt
            state.bytes = bytes
            state.usable = true
        }
        makeRoom(for: 0)
        return true
    }

    static let entrySuffix = ".entry"
    static let temporaryPrefix = ".tmp-"

    private func read(_ key: String, matching headers: [String: String]) -> CachedResponse? {
        guard open() else { return nil }
        let digest = digest(key)
        let protectedHeaders = Self.protected(headers, salt: state.withLock { $0.salt })
        for entry in state.withLock({ $0.entries[digest] ?? [] }) {
            guard let response = entry.loaded ?? decoded(entry, digest: digest) else { continue }
            guard response.matches(protectedHeaders) else { continue }
            state.withLock { state in
                state.order.use(entry.name)
                if entry.loaded != nil { state.loadedOrder.use(entry.name) }
            }
            return response
        }
        return nil
    }

    /// The response in `entry`'s file, kept in memory from now on; `nil` (and the entry dropped) when the file is
    /// gone or fails its digest.
    private func decoded(_ entry: Entry, digest: String) -> CachedResponse? {
        guard let bytes = CacheFolder.contents(of: file(entry.name), atMost: maximumBytes),
            let response = CacheEntryFile.decode(bytes, keyDigest: digest)
        else {
            drop(entry, digest: digest)
            return nil
        }
        state.withLock { keepLoaded(response, name: entry.name, digest: digest, in: &$0) }
        return response
    }

    /// The name of the entry of `digest`'s URL for the Vary values `varying`.
    private func entryName(digest: String, varying: [(name: String, value: String?)]) -> String {
        let selector = varying.map { "\($0.name)\u{0}\($0.value.map { "+" + $0 } ?? "-")" }.joined(separator: "\u{0}")
        return "\(digest)-\(Self.hash(selector, salt: state.withLock { $0.salt }).prefix(24))\(Self.entrySuffix)"
    }

    /// Writes `response` as `key`'s entry for its Vary values, replacing the one there; `false` when it could not.
    @discardableResult
    private func write(_ response: CachedResponse, for key: String) -> Bool {
        let digest = digest(key)
        let name = entryName(digest: digest, varying: response.varying)
        let bytes = CacheEntryFile.encode(response, keyDigest: digest)
        let replaced = state.withLock { $0.entries[digest]?.first { $0.name == name } }
        guard bytes.count <= maximumBytes - state.withLock({ $0.salt.count }) else {
            // Too large for the folder: the entry it would replace is out of date, so it goes too.
            if let replaced { drop(replaced, digest: digest) }
            return false
        }
        makeRoom(for: bytes.count, sparing: name)
        state.withLock { $0.bytes += bytes.count }
        var written = writeFile(bytes, named: name)
        if !written, !CacheFolder.exists(folder) {
            // The folder went away (a cleaner, the user): made again, with its salt, and tried once more.
            if case .ready = CacheFolder.prepare(folder),
                CacheFolder.restoreSalt(state.withLock { $0.salt }, in: folder)
            {
                written = writeFile(bytes, named: name)
            }
        }
        guard written else {
            state.withLock { $0.bytes -= bytes.count }
            if let replaced { drop(replaced, digest: digest) }
            return false
        }
        state.withLock { state in
            var list = state.entries[digest] ?? []
            if let index = list.firstIndex(where: { $0.name == name }) {
                state.bytes -= list[index].bytes
                state.loadedBytes -= list[index].loaded?.cost ?? 0
                state.loadedOrder.remove(name)
                list.remove(at: index)
            }
            list.insert(Entry(name: name, bytes: bytes.count), at: 0)
            state.entries[digest] = list
            state.order.use(name)
            keepLoaded(response, name: name, digest: digest, in: &state)
        }
        let surplus = state.withLock { Array(($0.entries[digest] ?? []).dropFirst(MemoryCacheStore.mostVariants)) }
        for entry in surplus { drop(entry, digest: digest) }
        return true
    }

    /// Writes `bytes` to a new file and renames it over the entry `name`.
    private func writeFile(_ bytes: [UInt8], named name: String) -> Bool {
        let temporary = file(Self.temporaryPrefix + UUID().uuidString)
        guard CacheFolder.writeNew(bytes, to: temporary) else { return false }
        writeProbe?(folder)
        guard CacheFolder.replace(file(name), with: temporary) else {
            CacheFolder.remove(temporary)
            return false
        }
        return true
    }

    /// Removes least recently used entries until `incoming` more bytes fit, keeping `sparing` (the entry about to be
    /// replaced, whose bytes leave when its replacement arrives) to the last.
    private func makeRoom(for incoming: Int, sparing: String? = nil) {
        while true {
            let victim: (String, Entry)? = state.withLock { state in
                guard state.bytes + incoming > maximumBytes, var oldest = state.order.oldest() else { return nil }
                if oldest == sparing {
                    state.order.use(oldest)
                    guard let next = state.order.oldest(), next != sparing else {
                        return Self.entry(named: oldest, in: state)
                    }
                    oldest = next
                }
                return Self.entry(named: oldest, in: state)
            }
            guard let (digest, entry) = victim else { return }
            drop(entry, digest: digest)
        }
    }

    private static func entry(named name: String, in state: State) -> (String, Entry)? {
        guard let dash = name.firstIndex(of: "-") else { return nil }
        let digest = String(name[..<dash])
        return state.entries[digest]?.first { $0.name == name }.map { (digest, $0) }
    }

    /// Keeps `response`, the entry `name` of `digest`, decoded in memory, making room there least recently used first.
    private func keepLoaded(_ response: CachedResponse, name: String, digest: String, in state: inout State) {
        let cost = response.cost
        guard cost <= memoryBytes, let index = state.entries[digest]?.firstIndex(where: { $0.name == name }),
            state.entries[digest]?[index].loaded == nil
        else { return }
        state.entries[digest]?[index].loaded = response
        state.loadedBytes += cost
        state.loadedOrder.use(name)
        while state.loadedBytes > memoryBytes, let oldest = state.loadedOrder.oldest() {
            state.loadedOrder.remove(oldest)
            guard let (oldestDigest, _) = Self.entry(named: oldest, in: state),
                let oldestIndex = state.entries[oldestDigest]?.firstIndex(where: { $0.name == oldest })
            else { continue }
            state.loadedBytes -= state.entries[oldestDigest]?[oldestIndex].loaded?.cost ?? 0
            state.entries[oldestDigest]?[oldestIndex].loaded = nil
        }
    }

    /// Forgets `entry` and deletes its file.
    private func drop(_ entry: Entry, digest: String) {
        let known = state.withLock { state -> Bool in
            guard let index = state.entries[digest]?.firstIndex(where: { $0.name == entry.name }) else { return false }
            let removed = state.entries[digest]?.remove(at: index)
            if state.entries[digest]?.isEmpty == true { state.entries[digest] = nil }
            state.bytes -= removed?.bytes ?? 0
            state.loadedBytes -= removed?.loaded?.cost ?? 0
            state.order.remove(entry.name)
            state.loadedOrder.remove(entry.name)
            return true
        }
        if known { CacheFolder.remove(file(entry.name)) }
    }

    /// The file of the entry named `name`.
    private func file(_ name: String) -> URL {
        URL(fileURLWithPath: folder.path + "/" + name, isDirectory: false)
    }

    // MARK: - Digests

    /// The salted digest of `key`, as file names start.
    private func digest(_ key: String) -> String { Self.digest(key, salt: state.withLock { $0.salt }) }

    private static func digest(_ key: String, salt: [UInt8]) -> String { String(hash(key, salt: salt).prefix(40)) }

    /// A Vary value as it is kept: credentials as salted digests.
    private static func protectedValue(_ value: String?, of name: String, salt: [UInt8]) -> String? {
        guard let value, SensitiveData.current.isSensitiveHeader(name) else { return value }
        return "sha256:" + hash(value, salt: salt)
    }

    /// `headers` with the values of credentials as they are kept.
    private static func protected(_ headers: [String: String], salt: [UInt8]) -> [String: String] {
        var protected = headers
        for (name, value) in headers where SensitiveData.current.isSensitiveHeader(name) {
            protected[name] = protectedValue(value, of: name, salt: salt)
        }
        return protected
    }

    private static func hash(_ text: String, salt: [UInt8]) -> String {
        var hasher = SHA256()
        hasher.update(salt)
        hasher.update(Array(text.utf8))
        return hasher.finalizeHex()
    }
}
