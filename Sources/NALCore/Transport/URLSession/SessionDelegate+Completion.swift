import NALLogging

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

extension SessionDelegate {
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        // A stream's cancellation may wait for the work queue on another thread: it must have queued its report
        // before FoundationNetworking marks this task completed, right after this returns (Linux fact 25).
        delegateQueue.awaitAsideCancellation(of: task)
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
}
