import Foundation
import NALCore
import NALLogging
import NALMiddleware

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The calls a soak makes, through one `Client` with token refresh, retry and logging middleware.
struct SoakTraffic: Sendable {
    struct Endpoint: RemoteService, AccessTokenAuthorizable {
        var baseURL: URL
        var path: String
        var method: HTTPMethod = .get
        var requestType: RequestType = .plain
        var needsToken = false
        var timeout: TimeInterval? { 10 }
        /// Every call races a deadline timer that is almost always cancelled: the heap-block bound sees whether a
        /// cancelled one keeps memory. The fault server answers in milliseconds, so a call that reaches it hung:
        /// the report counts it with the lost ones.
        var totalTimeout: TimeInterval? { 60 }
        var accessTokenType: AccessTokenType { needsToken ? .bearer : .none }
    }

    let base: URL
    let workspace: URL
    let upload: URL
    let client: Client<Endpoint>
    /// The token the middleware sends; a refresh makes it right, and the soak makes it stale again now and then.
    let token = Locked("stale")
    let deadlines = SoakDeadlines()

    init(base: URL, workspace: URL, upload: URL, transport: any Transport) {
        self.base = base
        self.workspace = workspace
        self.upload = upload
        let token = token
        let auth = AccessTokenMiddleware(
            token: { _ in token.withLock { $0 } },
            refresh: {
                try await Task.sleep(for: .milliseconds(20))
                token.withLock { $0 = "fresh" }
            })
        let retry = RetryMiddleware(maxAttempts: 3, baseDelay: .milliseconds(5), maximumDelay: .milliseconds(50))
        client = Client(middleware: [LoggingMiddleware(level: .info), retry, auth], transport: transport)
    }

    /// One random call, cancelled at a random moment about one time in six; its end is counted in `tally`.
    func oneCall(named name: String, tally: SoakTally, using generator: inout some RandomNumberGenerator) async {
        let kind = Self.kinds.randomElement(using: &generator) ?? 0
        let cancelAfter: Duration? =
            Int.random(in: 0..<6, using: &generator) == 0
            ? .milliseconds(Int64.random(in: 0...60, using: &generator)) : nil
        if kind == 4, Int.random(in: 0..<8, using: &generator) == 0 { token.withLock { $0 = "stale" } }
        tally.started()
        let call = Task { await self.perform(kind, name: name) }
        if let cancelAfter {
            try? await Task.sleep(for: cancelAfter)
            call.cancel()
        }
        // A call that never ends is lost: it stays counted as started, and the worker goes on without it.
        if let outcome = await outcome(of: call, within: Self.callDeadline) { tally.ended(outcome) }
    }

    /// How long any call may take, retries and reconnections included (each attempt times out after 10 s): 120 s,
    /// or `NAL_SOAK_CALL_DEADLINE_MS` (a tiny one shows that the lost-call bound fails).
    static let callDeadline: Duration = .milliseconds(
        ProcessInfo.processInfo.environment["NAL_SOAK_CALL_DEADLINE_MS"].flatMap { Int64($0) } ?? 120_000)

    /// `call`'s outcome, or `nil` when it has not ended within `deadline` (it is then cancelled, so that a lost call
    /// holds no worker's place).
    private func outcome(of call: Task<String, Never>, within deadline: Duration) async -> String? {
        let first = Locked<CheckedContinuation<String?, Never>?>(nil)
        return await withCheckedContinuation { continuation in
            first.withLock { $0 = continuation }
            let resume = { @Sendable (outcome: String?) in first.withLock { $0.take() }?.resume(returning: outcome) }
            let watch = deadlines.watch(until: .now + deadline) {
                resume(nil)
                call.cancel()
            }
            Task {
                let outcome = await call.value
                deadlines.end(watch)
                resume(outcome)
            }
        }
    }

    /// Makes call `kind` and names how it ended: `ok`, or the `NALError` case.
    private func perform(_ kind: Int, name: String) async -> String {
        do {
            switch kind {
            case 0: _ = try await client.request(Endpoint(baseURL: base, path: "fast"))
            case 1:
                _ = try await client.request(
                    Endpoint(
                        baseURL: base, path: "delay",
                        requestType: .parameters(["ms": 30], encoding: URLEncoding.default)))
            case 2:
                _ = try await client.request(
                    Endpoint(
                        baseURL: base, path: "flaky",
                        requestType: .parameters(["key": .string(name), "failures": 2], encoding: URLEncoding.default)))
            case 3:
                _ = try await client.request(
                    Endpoint(baseURL: base, path: "sink", method: .put, requestType: .uploadFile(upload)))
            case 4:
                _ = try await client.request(
                    Endpoint(
                        baseURL: base, path: "protected",
                        requestType: .parameters(["token": "fresh"], encoding: URLEncoding.default), needsToken: true))
            case 5:
                var form = MultipartFormData()
                form.append("soak", name: "label")
                form.append(fileAt: upload, name: "file")
                _ = try await client.request(
                    Endpoint(
                        baseURL: base, path: "sink", method: .post,
                        requestType: .uploadCompositeMultipart(form, urlParameters: ["multipart": "1"])))
            case 6:
                let file = workspace.appendingPathComponent("\(name).bin")
                defer { try? FileManager.default.removeItem(at: file) }
                _ = try await client.request(
                    Endpoint(baseURL: base, path: "source/2000000", requestType: .download(.file(file))))
            case 7:
                for try await _ in client.transfer(Endpoint(baseURL: base, path: "source/500000")) {}
            case 8:
                _ = try await client.request(Endpoint(baseURL: base, path: "close-mid-body"))
            case 10:
                // An event stream that drops mid-event and is resumed with Last-Event-ID until its 204.
                let events = Endpoint(
                    baseURL: base, path: "sse",
                    requestType: .parameters(["script": "resume", "key": .string(name)], encoding: URLEncoding.default))
                for try await _ in client.serverSentEvents(events, reconnect: Self.quickReconnection) {}
            case 11:
                // A streamed body left halfway: the rest is cancelled.
                var read = 0
                for try await chunk in try await client.stream(Endpoint(baseURL: base, path: "source/1000000")) {
                    read += chunk.count
                    if read > 500_000 { break }
                }
            default:
                _ = try await client.request(Endpoint(baseURL: base, path: "not-gzip"))
            }
            return "ok"
        } catch let error as NALError {
            return Self.kind(of: error)
        } catch {
            return "untyped \(type(of: error))"
        }
    }

    /// One data call through the soak's client, for the leak reference.
    func fastCall() async {
        _ = try? await client.request(Endpoint(baseURL: base, path: "fast"))
    }

    /// The kinds of call to make: all twelve, or those `NAL_SOAK_KINDS` lists (`0,3,6`), to find which one leaks.
    static let kinds: [Int] = {
        let listed = ProcessInfo.processInfo.environment["NAL_SOAK_KINDS"]?.split(separator: ",").compactMap { Int($0) }
        return listed?.isEmpty == false ? listed ?? [] : Array(0..<12)
    }()

    /// Reconnections in milliseconds, so that a resumed event stream is a short call.
    static let quickReconnection = ReconnectionPolicy(
        initialDelay: .milliseconds(5), maximumDelay: .milliseconds(20), maximumAttempts: 5)

    /// The case of an error, without its payload: what the report counts.
    static func kind(of error: NALError) -> String {
        switch error {
        case .transport(let urlError): "transport(\(urlError.code.rawValue))"
        case .cancelled: "cancelled"
        case .timedOut(let failure): failure.limit == .total ? SoakReport.hung : "timedOut"
        case .unacceptableStatusCode(let response): "status \(response.statusCode)"
        case .tokenRefreshFailed: "tokenRefreshFailed"
        case .file: "file"
        default: "other: \(error)"
        }
    }

    /// Empties the fault server's journal, which would otherwise grow with every call of a long soak.
    /// Through the soak's own client: over CurlTransport, a URLSession call here would add FoundationNetworking's
    /// four heap blocks per request to what the bounds read as NAL's.
    func forgetJournal() async {
        _ = try? await client.request(Endpoint(baseURL: base, path: "_journal", method: .delete))
    }
}
