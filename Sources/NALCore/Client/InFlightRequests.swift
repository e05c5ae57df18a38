import NALLogging
import Synchronization

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// Shares one transport call among identical concurrent requests (Mockingbird's `trackInProgress`).
///
/// Requests are identical when method, URL, headers and body are. The shared call is cancelled only when every
/// caller waiting for it has been cancelled; it then leaves the table at once, so a new identical request starts a
/// fresh call instead of joining the cancelled one.
final class InFlightRequests: Sendable {
    typealias Outcome = Result<Response, NALError>

    struct Key: Hashable {
        let method: String
        let url: String
        let headers: [String: String]
        let body: Data?

        init(_ request: URLRequest) {
            method = request.httpMethod ?? "GET"
            url = request.url?.absoluteString ?? ""
            headers = request.allHTTPHeaderFields ?? [:]
            body = request.httpBody
        }
    }

    final class Entry: Sendable {
        let id: UInt64
        let task: Task<Outcome, Never>
        let waiters = Atomic<Int>(1)

        init(id: UInt64, task: Task<Outcome, Never>) {
            self.id = id
            self.task = task
        }
    }

    struct Table: Sendable {
        var entries: [Key: Entry] = [:]
        var nextID: UInt64 = 0

        /// Removes the entry for `key` if it is still the one with `id`.
        mutating func remove(_ key: Key, id: UInt64) {
            if entries[key]?.id == id { entries[key] = nil }
        }
    }

    private let table = Locked(Table())

    func run(_ request: URLRequest, operation: @escaping @Sendable () async -> Outcome) async -> Outcome {
        let key = Key(request)
        let entry = table.withLock { table -> Entry in
            if let existing = table.entries[key] {
                existing.waiters.add(1, ordering: .relaxed)
                return existing
            }
            let id = table.nextID
            table.nextID &+= 1
            let created = Entry(
                id: id,
                task: Task {
                    let outcome = await operation()
                    self.table.withLock { $0.remove(key, id: id) }
                    return outcome
                })
            table.entries[key] = created
            return created
        }
        return await withTaskCancellationHandler {
            await entry.task.value
        } onCancel: {
            guard entry.waiters.subtract(1, ordering: .relaxed).newValue == 0 else { return }
            table.withLock { $0.remove(key, id: entry.id) }
            entry.task.cancel()
        }
    }
}
