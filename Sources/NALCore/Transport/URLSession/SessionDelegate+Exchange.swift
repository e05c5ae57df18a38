import NALLogging

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

extension SessionDelegate {
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
    func start(_ task: URLSessionDataTask, _ state: State, _ starting: StartingTask) {
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
    func cancel(_ starting: StartingTask) {
        guard let task = starting.cancel() else { return }
        end(task, task.taskIdentifier, with: .failure(.cancelled))
    }

    /// Ends the call for `identifier` with `outcome` unless it has ended, and cancels the task if it may still run.
    func end(_ task: URLSessionTask, _ identifier: Int, with outcome: Outcome) {
        guard finish(identifier, with: outcome) else { return }
        delegateQueue.cancel(task)
    }

    /// Resumes the continuation of `identifier` with `outcome`, or ends its streamed body with it once the head has
    /// been returned; `false` when the call had already ended.
    @discardableResult
    func finish(_ identifier: Int, with outcome: Outcome) -> Bool {
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
}
