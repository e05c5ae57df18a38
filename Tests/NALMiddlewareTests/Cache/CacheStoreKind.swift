import Foundation
import NALMiddleware
import Testing

/// The two storages, so that every rule of the cache is checked on both.
enum CacheStoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory
    case directory

    var testDescription: String { rawValue }

    /// A storage of this kind; a folder is new and empty.
    func storage(maximumBytes: Int) -> HTTPCache.Storage {
        switch self {
        case .memory: .memory(maximumBytes: maximumBytes)
        case .directory: .directory(Self.newFolder(), maximumBytes: maximumBytes)
        }
    }

    /// A folder that does not exist yet, under the temporary directory.
    static func newFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("nal-http-cache-\(UUID().uuidString)")
    }
}
