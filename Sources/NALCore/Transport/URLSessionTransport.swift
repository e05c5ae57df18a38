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
final class SessionTasks: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: every mutable field lives in `states`, guarded by `lock`; URLSession calls us on its own queue.
    typealias Outcome = Result<(HTTPURLResponse, Data), NALError>

    final class State {
        let limit: Int
        var continuation: UnsafeContinuation<Outcome, Never>?
        var response: HTTPURLResponse?
        var body = Data()
        var failure: NALError?
        /// The 401 or 407 of a declined authentication challenge; the call returns it.
        var challengeResponse: HTTPURLResponse?

        init(limit: Int, continuation: UnsafeContinuation<Outcome, Never>) {
            self.limit = limit
            self.continuation = continuation
        }
    }

    private let lock = NSLock()
    private var states: [Int: State] = [:]
    private let redirectPolicy: RedirectPolicy
    private static let log = Logger(nal: .request)

    init(redirectPolicy: RedirectPolicy) {
        self.redirectPolicy = redirectPolicy
    }

    func start(_ task: URLSessionDataTask, limit: Int, continuation: UnsafeContinuation<Outcome, Never>) {
        lock.withLock { states[task.taskIdentifier] = State(limit: limit, continuation: continuation) }
        // A Task cancelled before this point has already run its cancellation handler; don't start the request.
        if Task.isCancelled {
            finish(task.taskIdentifier, with: .failure(.cancelled))
            task.cancel()
            return
        }
        task.resume()
    }

    private func finish(_ identifier: Int, with outcome: Outcome) {
        let continuation = lock.withLock { () -> UnsafeContinuation<Outcome, Never>? in
            let continuation = states[identifier]?.continuation
            states[identifier] = nil
            return continuation
        }
        continuation?.resume(returning: outcome)
    }

    /// Ends the call early with `failure` (the body is too large) and stops the transfer.
    private func abort(_ task: URLSessionTask, with failure: NALError) {
        lock.withLock { states[task.taskIdentifier]?.failure = failure }
        task.cancel()
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let limit = lock.withLock { () -> Int? in
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
        let overflow = lock.withLock { () -> Int? in
            guard let state = states[dataTask.taskIdentifier], state.failure == nil else { return nil }
            state.body.append(data)
            return state.body.count > state.limit ? state.limit : nil
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
            lock.withLock { states[task.taskIdentifier]?.challengeResponse = response }
        }
        completionHandler(.rejectProtectionSpace, nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (response, body, failure, challenged) = lock.withLock {
            () -> (HTTPURLResponse?, Data, NALError?, HTTPURLResponse?) in
            guard let state = states[task.taskIdentifier] else { return (nil, Data(), nil, nil) }
            return (state.response, state.body, state.failure, state.challengeResponse)
        }
        if let challenged, failure == nil, (error as? URLError)?.code == .cancelled || error == nil {
            finish(task.taskIdentifier, with: .success((response ?? challenged, body)))
        } else if let failure {
            finish(task.taskIdentifier, with: .failure(failure))
        } else if let error {
            finish(task.taskIdentifier, with: .failure(Self.nalError(error, url: task.originalRequest?.url)))
        } else if let response {
            finish(task.taskIdentifier, with: .success((response, body)))
        } else {
            finish(task.taskIdentifier, with: .failure(.transport(URLError(.badServerResponse))))
        }
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
