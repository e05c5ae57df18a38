import NALLogging

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// Shares one transport call among identical concurrent requests (Mockingbird's `trackInProgress`).
///
/// Requests are identical when everything that is sent is: method, URL, headers, body (an upload's bytes; a file
/// by path, size and modification date; a multipart upload by its parts), timeout and in-memory limit. Downloads,
/// and bodies from a stream, are never shared. A caller that is cancelled gets `NALError.cancelled` at once and the others carry on;
/// the shared call itself is cancelled only when its last caller leaves, and it then leaves the table, so a new
/// identical request starts a fresh call. Joining and leaving happen under one lock.
final class InFlightRequests: Sendable {
    typealias Outcome = Result<Response, NALError>

    struct Key: Hashable, Sendable {
        let method: String
        let url: String
        let headers: [String: String]
        let body: Data?
        let upload: [UploadPart]
        let timeout: TimeInterval
        /// The caller's idle timeout: a request's `timeoutInterval` of 60 s may be chosen or Foundation's default.
        let idleTimeout: TimeInterval?
        let maximumResponseSize: Int?

        /// What identifies an uploaded file or part without reading a file.
        struct UploadPart: Hashable, Sendable {
            var name = ""
            var fileName: String?
            var mimeType: String?
            var data: Data?
            var path: String?
            var size: Int64?
            var modified: Date?

            init(
                name: String = "", fileName: String? = nil, mimeType: String? = nil,
                _ provider: MultipartFormBodyPart.Provider
            ) {
                self.name = name
                self.fileName = fileName
                self.mimeType = mimeType
                switch provider {
                case .data(let bytes):
                    data = bytes
                case .file(let url):
                    path = url.standardizedFileURL.path
                    let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
                    size = (attributes?[.size] as? NSNumber)?.int64Value
                    modified = attributes?[.modificationDate] as? Date
                }
            }
        }

        /// The key of a request, or `nil` when what it sends cannot be compared.
        init?(_ request: URLRequest, kind: RequestKind, options: RequestOptions, idleTimeout: TimeInterval?) {
            switch kind {
            case .data:
                body = request.httpBody
                upload = []
            case .upload(.data(let data)):
                body = data
                upload = []
            case .upload(.file(let url)):
                body = nil
                upload = [UploadPart(.file(url))]
            case .upload(.multipart(let parts)):
                body = nil
                upload = parts.map {
                    UploadPart(name: $0.name, fileName: $0.fileName, mimeType: $0.mimeType, $0.provider)
                }
            case .download:
                return nil
            }
            guard request.httpBodyStream == nil else { return nil }
            method = request.httpMethod ?? "GET"
            url = request.url?.absoluteString ?? ""
            headers = request.allHTTPHeaderFields ?? [:]
            timeout = request.timeoutInterval
            self.idleTimeout = idleTimeout
            maximumResponseSize = options.maximumResponseSize
        }
    }

    private struct SharedCall: Sendable {
        let id: UInt64
        var waiters: [UInt64: UnsafeContinuation<Outcome, Never>]
        var task: Task<Void, Never>?
    }

    private struct Table: Sendable {
        var calls: [Key: SharedCall] = [:]
        var nextID: UInt64 = 0

        mutating func makeID() -> UInt64 {
            nextID &+= 1
            return nextID
        }
    }

    private let table = Locked(Table())

    /// Joins the call in flight for `key`, or starts `operation` as a new shared call.
    func run(_ key: Key, operation: @escaping @Sendable () async -> Outcome) async -> Outcome {
        let waiter = table.withLock { $0.makeID() }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                join(key, waiter: waiter, continuation: continuation, operation: operation)
            }
        } onCancel: {
            leave(key, waiter: waiter)
        }
    }

    private func join(
        _ key: Key, waiter: UInt64, continuation: UnsafeContinuation<Outcome, Never>,
        operation: @escaping @Sendable () async -> Outcome
    ) {
        enum Joined { case cancelled, joined, started(UInt64) }
        // Checked under the lock: the cancellation flag is set before `leave` runs, and `leave` takes the lock.
        let joined = table.withLock { table -> Joined in
            if Task.isCancelled { return .cancelled }
            if table.calls[key] != nil {
                table.calls[key]?.waiters[waiter] = continuation
                return .joined
            }
            let id = table.makeID()
            table.calls[key] = SharedCall(id: id, waiters: [waiter: continuation], task: nil)
            return .started(id)
        }
        switch joined {
        case .cancelled:
            continuation.resume(returning: .failure(.cancelled))
        case .joined:
            break
        case .started(let id):
            let task = Task {
                let outcome = await operation()
                self.complete(key, id: id, with: outcome)
            }
            let abandoned = table.withLock { table -> Bool in
                guard table.calls[key]?.id == id else { return true }
                table.calls[key]?.task = task
                return false
            }
            if abandoned { task.cancel() }
        }
    }

    private func leave(_ key: Key, waiter: UInt64) {
        let (continuation, abandonedTask) = table.withLock {
            table -> (UnsafeContinuation<Outcome, Never>?, Task<Void, Never>?) in
            guard let continuation = table.calls[key]?.waiters.removeValue(forKey: waiter) else { return (nil, nil) }
            guard table.calls[key]?.waiters.isEmpty == true else { return (continuation, nil) }
            return (continuation, table.calls.removeValue(forKey: key)?.task)
        }
        continuation?.resume(returning: .failure(.cancelled))
        abandonedTask?.cancel()
    }

    private func complete(_ key: Key, id: UInt64, with outcome: Outcome) {
        let waiters = table.withLock { table -> [UnsafeContinuation<Outcome, Never>] in
            guard table.calls[key]?.id == id else { return [] }
            return table.calls.removeValue(forKey: key).map { Array($0.waiters.values) } ?? []
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }
}
