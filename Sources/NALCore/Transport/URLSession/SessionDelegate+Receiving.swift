import NALLogging

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

extension SessionDelegate {
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
    func checkIdleTimes() {
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
    enum ChunkAction {
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
    func decideRoute(
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
    static func keep(
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
}
