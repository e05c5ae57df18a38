import NALLogging

#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// Sends requests with `URLSession`, through a session delegate.
///
/// On Linux a completion handler sees only the last body chunk, so every chunk is appended here in the delegate.
/// Download tasks are never created (they crash custom URLProtocols on Linux). Cancelling the calling `Task` cancels
/// the `URLSessionTask`. Redirects follow `redirectPolicy`, and credentials never cross origins.
public final class URLSessionTransport: Transport {
    /// The default in-memory limit for a response body: 64 MiB.
    public static let defaultMaximumResponseSize = 64 << 20

    private let session: URLSession
    private let tasks: SessionTasks
    /// The most bytes of body kept in memory; more ends the call with `NALError.responseTooLarge`.
    public let maximumResponseSize: Int

    /// Creates a transport with its own session.
    public init(
        configuration: URLSessionConfiguration = .default,
        maximumResponseSize: Int = URLSessionTransport.defaultMaximumResponseSize,
        redirectPolicy: RedirectPolicy = .follow
    ) {
        self.maximumResponseSize = maximumResponseSize
        tasks = SessionTasks(redirectPolicy: redirectPolicy)
        session = URLSession(configuration: configuration, delegate: tasks, delegateQueue: nil)
    }

    deinit {
        // The session keeps its delegate alive until it is invalidated.
        session.finishTasksAndInvalidate()
    }

    /// Sends `request` and collects the whole body.
    public func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
        var request = request
        if let timeout = context.options.timeout { request.timeoutInterval = timeout }
        switch context.kind {
        case .data:
            break
        case .download:
            throw .invalidRequest(.unsupportedRequestType("download"))
        case .upload(.data(let body)):
            request.httpBody = body
        case .upload(.file(let file)):
            do {
                request.httpBody = try Data(contentsOf: file)
            } catch {
                throw .transport(URLError(.cannotOpenFile, userInfo: [NSURLErrorFailingURLErrorKey: file]))
            }
        case .upload(.multipart):
            throw .invalidRequest(.unsupportedRequestType("uploadMultipart"))
        }

        let limit = context.options.maximumResponseSize ?? maximumResponseSize
        let startDate = Date()
        let clock = ContinuousClock()
        let start = clock.now
        let task = session.dataTask(with: request)
        let outcome = await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                tasks.start(task, limit: limit, continuation: continuation)
            }
        } onCancel: {
            task.cancel()
        }
        let (httpResponse, data) = try outcome.get()
        return Response(
            request: request, httpResponse: httpResponse, data: data,
            timing: ResponseTiming(start: startDate, duration: clock.now - start))
    }
}

/// The session delegate: per-task state keyed by task identifier, under one lock.
final class SessionTasks: NSObject, URLSessionDataDelegate, Sendable {
    typealias Outcome = Result<(HTTPURLResponse, Data), NALError>

    struct State: Sendable {
        let limit: Int
        let continuation: UnsafeContinuation<Outcome, Never>
        var response: HTTPURLResponse?
        var body = Data()
        var failure: NALError?
        /// The 401 or 407 of a declined authentication challenge; the call returns it.
        var challengeResponse: HTTPURLResponse?
    }

    private let states = Locked<[Int: State]>([:])
    private let redirectPolicy: RedirectPolicy
    private static let log = Logger(nal: .request)

    init(redirectPolicy: RedirectPolicy) {
        self.redirectPolicy = redirectPolicy
    }

    func start(_ task: URLSessionDataTask, limit: Int, continuation: UnsafeContinuation<Outcome, Never>) {
        states.withLock { $0[task.taskIdentifier] = State(limit: limit, continuation: continuation) }
        // A Task cancelled before this point has already run its cancellation handler; don't start the request.
        if Task.isCancelled {
            finish(task.taskIdentifier, with: .failure(.cancelled))
            task.cancel()
            return
        }
        task.resume()
    }

    private func finish(_ identifier: Int, with outcome: Outcome) {
        states.withLock { $0.removeValue(forKey: identifier) }?.continuation.resume(returning: outcome)
    }

    /// Ends the call early with `failure` (the body is too large) and stops the transfer.
    private func abort(_ task: URLSessionTask, with failure: NALError) {
        states.withLock { $0[task.taskIdentifier]?.failure = failure }
        task.cancel()
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let limit = states.withLock { states -> Int? in
            states[dataTask.taskIdentifier]?.response = response as? HTTPURLResponse
            return states[dataTask.taskIdentifier]?.limit
        }
        if let limit, response.expectedContentLength > Int64(limit) {
            abort(dataTask, with: .responseTooLarge(limit: limit, url: response.url))
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let overflow = states.withLock { states -> Int? in
            let identifier = dataTask.taskIdentifier
            guard let limit = states[identifier]?.limit, states[identifier]?.failure == nil else { return nil }
            states[identifier]?.body.append(data)
            return (states[identifier]?.body.count ?? 0) > limit ? limit : nil
        }
        if let limit = overflow {
            abort(dataTask, with: .responseTooLarge(limit: limit, url: dataTask.originalRequest?.url))
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let safe = RedirectPolicy.strippingCredentials(request, from: response.url ?? task.currentRequest?.url)
        let next: URLRequest?
        switch redirectPolicy {
        case .follow: next = safe
        case .doNotFollow: next = nil
        case .custom(let decide): next = decide(response, safe)
        }
        Self.log.debug(
            """
            redirect \(response.statusCode) to \
            \(SensitiveHeaders.redactingQuery(of: request.url?.absoluteString ?? ""), privacy: .public): \
            \(next == nil ? "not followed" : "followed", privacy: .public)
            """)
        completionHandler(next)
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
        completionHandler(.rejectProtectionSpace, nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let state = states.withLock({ $0[task.taskIdentifier] }) else { return }
        let outcome: Outcome
        if let challenged = state.challengeResponse, state.failure == nil,
            error == nil || (error as? URLError)?.code == .cancelled
        {
            outcome = .success((state.response ?? challenged, state.body))
        } else if let failure = state.failure {
            outcome = .failure(failure)
        } else if let error {
            outcome = .failure(Self.nalError(error, url: task.originalRequest?.url))
        } else if let response = state.response {
            outcome = .success((response, state.body))
        } else {
            outcome = .failure(.transport(URLError(.badServerResponse)))
        }
        finish(task.taskIdentifier, with: outcome)
    }

    static func nalError(_ error: any Error, url: URL?) -> NALError {
        guard let urlError = error as? URLError else {
            var userInfo: [String: Any] = [NSUnderlyingErrorKey: error]
            if let url { userInfo[NSURLErrorFailingURLErrorKey] = url }
            return .transport(URLError(.unknown, userInfo: userInfo))
        }
        switch urlError.code {
        case .cancelled: return .cancelled
        case .timedOut: return .timedOut(urlError)
        default: return .transport(urlError)
        }
    }
}
