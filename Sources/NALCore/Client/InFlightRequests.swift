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
/// caller waiting for it has been cancelled.
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
        let task: Task<Outcome, Never>
        let waiters = Atomic<Int>(1)

        init(task: Task<Outcome, Never>) {
            self.task = task
        }
    }

    private let entries = Locked<[Key: Entry]>([:])

    func run(_ request: URLRequest, operation: @escaping @Sendable () async -> Outcome) async -> Outcome {
        let key = Key(request)
        let entry = entries.withLock { entries -> Entry in
            if let existing = entries[key] {
                existing.waiters.add(1, ordering: .relaxed)
                return existing
            }
            let created = Entry(
                task: Task {
                    let outcome = await operation()
                    self.entries.withLock { $0[key] = nil }
                    return outcome
                })
            entries[key] = created
            return created
        }
        return await withTaskCancellationHandler {
            await entry.task.value
        } onCancel: {
            if entry.waiters.subtract(1, ordering: .relaxed).newValue == 0 { entry.task.cancel() }
        }
    }
}
