import NALLogging

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// The session delegate of `URLSessionTransport`: runs one data task per `exchange`, with per-task state keyed by
/// task identifier under one lock.
///
/// A call ends exactly once, by whichever comes first: the task completing, the body passing its limit, the idle
/// timeout, or the calling `Task` being cancelled. Ending early removes the state at once, so chunks that are
/// still queued for the delegate are dropped as they arrive, and cancels the `URLSessionTask` on the delegate queue
/// (`SerialDelegateQueue.cancel(_:)`): there it is ordered with the task's completion, which FoundationNetworking
/// would otherwise let remove the task before the cancellation reports, and trap (Linux fact 25).
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    typealias Outcome = Result<(HTTPURLResponse, Data), NALError>

    struct State: Sendable {
        let limit: Int
        let idleTimeout: TimeInterval
        let url: URL?
        let continuation: UnsafeContinuation<Outcome, Never>
        var body = Data()
        /// The 401 or 407 of a declined authentication challenge; the call returns it.
        var challengeResponse: HTTPURLResponse?
        /// When a byte last moved, for the idle timeout.
        var lastActivity: ContinuousClock.Instant
        /// The task, so that the idle timer can cancel it.
        let task: URLSessionTask
        /// Where a download's body goes, or `nil` to keep every body in memory.
        let routing: (any BodyRouting)?
        /// Where this response's body goes, once its first bytes (or its end) have arrived.
        var route: BodyRoute?
        let progress: ProgressReporter?
        /// The failure of the body being streamed (a file that shrank), which explains a failed task.
        let uploadFailure: Locked<NALError?>?
        /// What a streamed body is made of, to send it again when a reused connection turns out closed.
        var uploadSegments: [UploadBodyStream.Segment]?
        /// Where the body goes when the caller streams it; the call then returns at the head.
        let stream: StreamedBody.Writer?
        /// Whether the head of a streamed call has been returned; the body then ends in `stream`.
        var headDelivered = false
        /// Whether a head arrived: libcurl's "Out of memory" before one is a head line past its 100 KiB.
        var receivedHead = false

        /// Whether libcurl's `message` for this call means a head larger than it takes: one line past 100 KiB
        /// (7.88 says "Out of memory"), or heads past 300 KiB (8.3 and patched 7.88: "Too large response headers").
        func headTooLarge(message: String) -> Bool {
            let lowered = message.lowercased()
            return !receivedHead && (lowered.contains("out of memory") || lowered.contains("too large response head"))
        }
    }

    private let states = Locked<[Int: State]>([:])
    /// Checks idle times every few milliseconds while calls are in flight, and sleeps otherwise: one timer for all
    /// calls, so that a call costs no extra task or timer of its own.
    private let idleTimer: RepeatingTimer
    /// Whether the timer is ticking; changed only under the `states` lock.
    private let ticking = Locked(false)
    static let tick = DispatchTimeInterval.milliseconds(5)
    /// Past this many bytes, a body is reserved its final capacity.
    static let largeBody = 1 << 20
    /// The most capacity reserved at once; past it a body grows as it comes. A limit, or a `Content-Length` under
    /// it, may be far larger than memory, and a reservation the system refuses stops the process (`Data` traps).
    static let largestReservation = 256 << 20

    private let delegateQueue: SerialDelegateQueue

    init(delegateQueue: SerialDelegateQueue) {
        self.delegateQueue = delegateQueue
        // A weak reference, not a stored closure: a closure kept as `Locked`'s generic value is re-abstracted and
        // written back by every `withLock`, so each tick wrapped it in one more thunk. After 30 minutes of calls the
        // chain was hundreds of thousands deep, each tick walked it, and releasing it overflowed the stack.
        let target = Locked(WeakTarget())
        idleTimer = RepeatingTimer(label: "dev.nal.transport.idle-timer") {
            target.withLock { $0.delegate }?.checkIdleTimes()
        }
        super.init()
        target.withLock { $0.delegate = self }
    }

    /// The delegate the idle timer checks, without keeping it alive.
    private struct WeakTarget: Sendable {
        weak var delegate: SessionDelegate?
    }

    /// Sends `request` once, without following redirects, and returns the response and the body kept in memory.
    ///
    /// - Parameters:
    ///   - upload: the request body to stream, when it is not in the request.
    ///   - routing: where a download's body goes; without it every body is kept in memory, up to `limit`.
    ///   - stream: where the body goes when the caller streams it: the call returns as soon as the head arrives,
    ///     with no data, and the body ends in `stream` (finished, or failed with the call's error). The writer's
    ///     `onCancel` cancels the task.
    func exchange(
        _ request: URLRequest, in session: URLSession, limit: Int, idleTimeout: TimeInterval,
        upload: UploadBody? = nil, routing: (any BodyRouting)? = nil, progress: ProgressReporter? = nil,
        stream: StreamedBody.Writer? = nil
    ) async throws(NALError) -> (HTTPURLResponse, Data) {
        var request = request
        var uploadData: Data?
        var uploadFailure: Locked<NALError?>?
        var uploadSegments: [UploadBodyStream.Segment]?
        switch upload {
        case nil: break
        case .data(let data)?: uploadData = data
        case .segments(let segments, _)?:
            let stream = try UploadBodyStream(segments)
            uploadFailure = stream.failures
            uploadSegments = segments
            request = stream.attached(to: request)
        }
        let starting = StartingTask()
        stream?.onCancel { [weak self] in self?.cancel(starting) }
        let outcome = await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                // Creating and resuming a task wait for the shared work queue: never on the cooperative pool.
                delegateQueue.waitingForWorkQueue { [self, request, uploadData, uploadFailure, uploadSegments] in
                    let task =
                        uploadData.map { session.uploadTask(with: request, from: $0) }
                        ?? session.dataTask(with: request)
                    var state = State(
                        limit: limit, idleTimeout: idleTimeout, url: request.url, continuation: continuation,
                        lastActivity: .now, task: task, routing: routing, progress: progress,
                        uploadFailure: uploadFailure, stream: stream)
                    state.uploadSegments = uploadSegments
                    start(task, state, starting)
                }
            }
        } onCancel: {
            cancel(starting)
        }
        return try outcome.get()
    }

    /// Registers the call's state and resumes its task, on the delegate queue; a call cancelled first ends here.
    private func start(_ task: URLSessionDataTask, _ state: State, _ starting: StartingTask) {
        let identifier = task.taskIdentifier
        let startsTimer = states.withLock { states -> Bool in
            states[identifier] = state
            return ticking.withLock { ticking in
                defer { ticking = true }
                return !ticking
            }
        }
        if startsTimer { idleTimer.start(every: Self.tick) }
        guard starting.started(task) else {
            end(task, identifier, with: .failure(.cancelled))
            return
        }
        task.resume()
    }

    /// Ends a call that is cancelled: at once when its task exists, else when it would have started.
    private func cancel(_ starting: StartingTask) {
        guard let task = starting.cancel() else { return }
        end(task, task.taskIdentifier, with: .failure(.cancelled))
    }

    /// Ends the call for `identifier` with `outcome` unless it has ended, and cancels the task if it may still run.
    private func end(_ task: URLSessionTask, _ identifier: Int, with outcome: Outcome) {
        guard finish(identifier, with: outcome) else { return }
        delegateQueue.cancel(task)
    }

    /// Resumes the continuation of `identifier` with `outcome`, or ends its streamed body with it once the head has
    /// been returned; `false` when the call had already ended.
    @discardableResult
    private func finish(_ identifier: Int, with outcome: Outcome) -> Bool {
        guard let state = states.withLock({ $0.removeValue(forKey: identifier) }) else { return false }
        guard let stream = state.stream else {
            state.continuation.resume(returning: outcome)
            return true
        }
        switch outcome {
        case .success(let (response, data)):
            stream.append(data)
            stream.finish()
            if !state.headDelivered { state.continuation.resume(returning: .success((response, Data()))) }
        case .failure(let error):
            if state.headDelivered {
                stream.finish(throwing: error)
            } else {
                state.continuation.resume(returning: outcome)
            }
        }
        return true
    }

    /// Returns the head of a streamed call as soon as it arrives; the body follows in its writer.
    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let head = response as? HTTPURLResponse else { return completionHandler(.allow) }
        if let length = head.value(forHTTPHeaderField: "Content-Length"),
            let failure = ContentLengthCheck.failure([length], url: head.url)
        {
            completionHandler(.cancel)
            return end(dataTask, dataTask.taskIdentifier, with: .failure(failure))
        }
        // libcurl 7.88 takes a head of any size made of lines under 100 KiB; NAL's limit is CurlTransport's.
        if ResponseHeadLimit.size(of: head) > ResponseHeadLimit.maximumBytes {
            completionHandler(.cancel)
            return end(dataTask, dataTask.taskIdentifier, with: .failure(ResponseHeadLimit.failure(url: head.url)))
        }
        completionHandler(.allow)
        let continuation = states.withLock { states -> UnsafeContinuation<Outcome, Never>? in
            guard let index = states.index(forKey: dataTask.taskIdentifier) else { return nil }
            states.values[index].receivedHead = true
            guard states.values[index].stream != nil, !states.values[index].headDelivered else { return nil }
            states.values[index].headDelivered = true
            return states.values[index].continuation
        }
        continuation?.resume(returning: .success((head, Data())))
    }

    /// Ends every call that has moved no byte for its idle timeout; stops ticking when no call is in flight.
    private func checkIdleTimes() {
        let now = ContinuousClock.now
        let expired = states.withLock { states -> [(Int, State)] in
            if states.isEmpty {
                ticking.withLock { $0 = false }
                idleTimer.stop()
                return []
            }
            // A streamed body never holds the server back (it spills), so idleness is the server's silence alone.
            return states.filter { _, state in
                now - state.lastActivity >= .milliseconds(Int64((state.idleTimeout * 1000).rounded(.up)))
            }.map { ($0.key, $0.value) }
        }
        for (identifier, state) in expired {
            let failure = TimeoutFailure(limit: .idle, seconds: state.idleTimeout, url: state.url)
            end(state.task, identifier, with: .failure(.timedOut(failure)))
        }
    }

    /// What a body chunk leads to, decided under the lock and done outside it.
    private enum ChunkAction {
        case none
        case overflow(limit: Int, url: URL?)
        /// The first chunk of a download: decide where its body goes.
        case route(any BodyRouting, ProgressReporter?)
        case write(any BodyRouting, ProgressReporter?)
        case count(ProgressReporter)
        case stream(StreamedBody.Writer)
    }

    /// Delegate callbacks run one at a time on the session's delegate queue, which is what limits throughput with
    /// many calls in flight; they do as little as possible, and file writes happen outside the lock.
    ///
    /// Progress handlers (a stream's `yield`, which takes the consuming task's lock) are called outside the `states`
    /// lock: the cancellation of that task takes its lock and then ours, and the opposite order deadlocks.
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let identifier = dataTask.taskIdentifier
        var firstOfMemoryBody = false
        let action = states.withLock { states -> ChunkAction in
            guard let index = states.index(forKey: identifier) else { return .none }
            states.values[index].lastActivity = .now
            if let stream = states.values[index].stream { return .stream(stream) }
            let progress = states.values[index].progress
            if let routing = states.values[index].routing {
                switch states.values[index].route {
                case nil: return .route(routing, progress)
                case .file?: return .write(routing, progress)
                case .memory?: break
                }
            } else if progress != nil, states.values[index].route == nil {
                states.values[index].route = .memory
                firstOfMemoryBody = true
            }
            if let overflow = Self.keep(data, in: &states.values[index], announced: dataTask.response) {
                return .overflow(limit: overflow.limit, url: overflow.url)
            }
            return progress.map { .count($0) } ?? .none
        }
        if firstOfMemoryBody, case .count(let progress) = action {
            let announced = dataTask.response?.expectedContentLength ?? -1
            progress.expectReceiving(announced >= 0 ? announced : nil, alreadyReceived: 0)
        }
        switch action {
        case .none:
            return
        case .stream(let stream):
            if !stream.append(data) { end(dataTask, identifier, with: .failure(.cancelled)) }
        case .overflow(let limit, let url):
            end(dataTask, identifier, with: .failure(.responseTooLarge(limit: limit, url: url)))
        case .count(let progress):
            progress.received(data.count)
        case .route(let routing, let progress):
            guard let response = dataTask.response as? HTTPURLResponse else { return }
            do {
                let route = try decideRoute(identifier, response: response, routing: routing, progress: progress)
                if route == .memory {
                    let overflow = states.withLock { states -> (limit: Int, url: URL?)? in
                        guard let index = states.index(forKey: identifier) else { return nil }
                        return Self.keep(data, in: &states.values[index], announced: response)
                    }
                    if let overflow {
                        end(
                            dataTask, identifier,
                            with: .failure(.responseTooLarge(limit: overflow.limit, url: overflow.url)))
                    }
                    return
                }
                try routing.write(data)
                progress?.received(data.count)
            } catch {
                end(dataTask, identifier, with: .failure(error))
            }
        case .write(let routing, let progress):
            do {
                try routing.write(data)
                progress?.received(data.count)
            } catch {
                end(dataTask, identifier, with: .failure(error))
            }
        }
    }

    /// Asks `routing` where the body of `response` goes, and remembers it.
    @discardableResult
    private func decideRoute(
        _ identifier: Int, response: HTTPURLResponse, routing: any BodyRouting, progress: ProgressReporter?
    ) throws(NALError) -> BodyRoute {
        let route = try routing.route(for: response)
        switch route {
        case .memory:
            let announced = response.expectedContentLength
            progress?.expectReceiving(announced >= 0 ? announced : nil, alreadyReceived: 0)
        case .file(let alreadyReceived, let total):
            progress?.expectReceiving(total, alreadyReceived: alreadyReceived)
        }
        states.withLock { $0[identifier]?.route = route }
        return route
    }

    /// Keeps `data` in memory; returns the limit when the body passes it. The first chunk is kept as is (no copy),
    /// and a `Content-Length` over the limit ends the call before any body is kept.
    private static func keep(
        _ data: Data, in state: inout State, announced response: URLResponse?
    ) -> (limit: Int, url: URL?)? {
        let limit = state.limit
        let announced = response?.expectedContentLength ?? -1
        if state.body.isEmpty {
            guard data.count <= limit, announced <= Int64(limit) else { return (limit, state.url) }
            state.body = data
            return nil
        }
        let size = state.body.count + data.count
        guard size <= limit else { return (limit, state.url) }
        if size > Self.largeBody, state.body.count <= Self.largeBody {
            // A large body gets its final capacity once: growing by doubling would briefly hold the old and the new
            // buffer, up to 1.5 times the limit. Capacity that is never written is never resident.
            let final = announced > 0 ? min(Int(announced), limit) : limit
            state.body.reserveCapacity(min(final, Self.largestReservation))
        }
        state.body.append(data)
        return nil
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        let progress = states.withLock { states -> ProgressReporter? in
            guard let index = states.index(forKey: task.taskIdentifier) else { return nil }
            states.values[index].lastActivity = .now
            return states.values[index].progress
        }
        progress?.sent(totalBytesSent, of: totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : nil)
    }

    /// A streamed body from its first byte again, for libcurl to send on a new connection when the reused one turns
    /// out closed (a keep-alive timeout racing the call). Without it the call stalls until its idle timeout.
    func urlSession(
        _ session: URLSession, task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        let body = states.withLock { states -> (segments: [UploadBodyStream.Segment], failures: Locked<NALError?>)? in
            guard let state = states[task.taskIdentifier], let segments = state.uploadSegments,
                let failures = state.uploadFailure
            else { return nil }
            return (segments, failures)
        }
        completionHandler(body.flatMap { try? UploadBodyStream($0.segments, failures: $0.failures) })
    }

    /// NAL follows redirects itself (see `RedirectPolicy`), so FoundationNetworking never does: it would drop the
    /// body of a 307 or 308 and forward credentials that came from the configuration.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    /// Credentials travel in headers the caller sets, so a challenge (a 401 with `WWW-Authenticate`) is declined
    /// and the call returns the 401 itself. On Linux, default handling waits forever and declining cancels the
    /// task, so the challenge's response is kept here and returned when the task ends.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        if let response = challenge.failureResponse as? HTTPURLResponse {
            states.withLock { $0[task.taskIdentifier]?.challengeResponse = response }
        }
        // Declining makes Foundation call `task.cancel()`: not from this callback, which must never wait for the
        // session's work queue, and not from another thread either, where it could race the task's completion
        // (Linux fact 25), but queued behind this callback, as `SerialDelegateQueue.cancel(_:)` does.
        delegateQueue.waitingForWorkQueue { completionHandler(.rejectProtectionSpace, nil) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let identifier = task.taskIdentifier
        // A download whose body was empty has not been routed yet: its (empty) file must still be made.
        let unrouted = states.withLock { states -> (any BodyRouting, ProgressReporter?)? in
            guard let state = states[identifier], state.route == nil, let routing = state.routing else { return nil }
            return (routing, state.progress)
        }
        if error == nil, let (routing, progress) = unrouted, let response = task.response as? HTTPURLResponse {
            do {
                try decideRoute(identifier, response: response, routing: routing, progress: progress)
            } catch {
                end(task, identifier, with: .failure(error))
                return
            }
        }
        let outcome = states.withLock { states -> Outcome? in
            guard let state = states[identifier] else { return nil }
            if let challenged = state.challengeResponse, error == nil || (error as? URLError)?.code == .cancelled {
                return .success(((task.response as? HTTPURLResponse) ?? challenged, state.body))
            }
            if let error {
                return .failure(state.uploadFailure?.withLock { $0 } ?? Self.nalError(error, state: state))
            }
            guard let response = task.response as? HTTPURLResponse else {
                return .failure(.transport(URLError(.badServerResponse)))
            }
            return .success((response, state.body))
        }
        if let outcome { finish(identifier, with: outcome) }
    }

    /// Foundation's error as an `NALError`. libcurl's failures after the headers arrived reach Foundation as
    /// `URLError.unknown` (-1) with only libcurl's message; they get the code of what happened, with the original
    /// kept as the underlying error, so that messages give the right advice and retries see a lost connection.
    static func nalError(_ error: any Error, state: State) -> NALError {
        var userInfo: [String: Any] = [NSUnderlyingErrorKey: error]
        if let url = state.url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        guard var urlError = error as? URLError else { return .transport(URLError(.unknown, userInfo: userInfo)) }
        // FoundationNetworking passes libcurl's message on, which quotes a proxy from the environment as given.
        let message = urlError.localizedDescription
        let redacted = SensitiveData.current.redacting(message: message)
        if redacted != message {
            var kept: [String: Any] = [NSLocalizedDescriptionKey: redacted]
            if let url = urlError.failingURL ?? state.url { kept[NSURLErrorFailingURLErrorKey] = url }
            urlError = URLError(urlError.code, userInfo: kept)
            userInfo[NSUnderlyingErrorKey] = urlError
        }
        switch urlError.code {
        case .cancelled:
            return .cancelled
        case .timedOut:
            return .timedOut(TimeoutFailure(limit: .idle, seconds: state.idleTimeout, url: state.url))
        case .unknown where state.headTooLarge(message: urlError.localizedDescription):
            return ResponseHeadLimit.failure(url: state.url)
        case .unknown:
            userInfo[NSLocalizedDescriptionKey] = urlError.localizedDescription
            return .transport(URLError(code(ofLibcurlMessage: urlError.localizedDescription), userInfo: userInfo))
        default:
            return .transport(urlError)
        }
    }

    /// libcurl inflates gzip inside FoundationNetworking and does not report a stream that ends early when the
    /// framing is consistent, and NAL never sees the compressed bytes. What it can tell is a gzip body shorter than
    /// the smallest complete gzip stream (a 10-byte header, 2 bytes of deflate, an 8-byte trailer).
    static func truncatedGzip(_ response: HTTPURLResponse, url: URL?) -> NALError? {
        truncatedGzip(
            contentEncoding: response.value(forHTTPHeaderField: "Content-Encoding"),
            contentLength: response.value(forHTTPHeaderField: "Content-Length"), url: url)
    }

    /// The same, from the two fields' values.
    static func truncatedGzip(contentEncoding: String?, contentLength: String?, url: URL?) -> NALError? {
        guard contentEncoding?.lowercased().contains("gzip") == true,
            let length = contentLength.flatMap(Self.length(of:)),
            (1..<20).contains(length)
        else { return nil }
        var userInfo: [String: Any] = [
            NSLocalizedDescriptionKey:
                "the gzip body is \(length) bytes, shorter than any complete gzip stream (20 bytes): it was cut short"
        ]
        if let url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        return .transport(URLError(.cannotDecodeContentData, userInfo: userInfo))
    }

    /// A `Content-Length` value as a number, also when the field came more than once with the same number and was
    /// merged into a list ("6, 6", which RFC 9110 §8.6 lets a recipient accept); `nil` for anything else.
    static func length(of contentLength: String) -> Int? {
        var check = ContentLengthCheck()
        check.read(contentLength)
        return check.length
    }

    /// The `URLError` code for one of libcurl's messages (CURLE_PARTIAL_FILE, CURLE_RECV_ERROR on bad chunking,
    /// CURLE_BAD_CONTENT_ENCODING), or `.unknown`.
    static func code(ofLibcurlMessage message: String) -> URLError.Code {
        let lowered = message.lowercased()
        if lowered.contains("unencoding") || lowered.contains("content encoding") || lowered.contains("decompress") {
            return .cannotDecodeContentData
        }
        if lowered.contains("transfer closed") || lowered.contains("connection reset") {
            return .networkConnectionLost
        }
        if lowered.contains("chunk") || lowered.contains("invalid status line")
            || lowered.contains("weird server reply")
            || lowered.contains("header")
        {
            return .cannotParseResponse
        }
        return .unknown
    }
}
