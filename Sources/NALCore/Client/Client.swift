public import Dispatch
public import Foundation
import NALLogging

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// Calls the endpoints of one service: NAL's `Mockingbird<Service>` and `MoyaProvider<Target>`.
///
/// ```swift
/// let client = Client<GitHub>()
/// let zen = try await client.request(.zen).string()
/// let user = try await client.request(.userProfile("octocat"), as: User.self)
/// ```
///
/// Each call prepares the request (`urlRequest()`), runs the hooks, sends it through the transport, and validates
/// the status code with the endpoint's `validation`. Every failure is an `NALError`.
public final class Client<Service: RemoteService>: Sendable {
    /// Turns a target into the endpoint that is prepared; Moya's `endpointClosure`.
    public typealias EndpointMapping = @Sendable (Service) -> Endpoint
    /// Changes the prepared request just before it is sent, asynchronously; Moya's `requestClosure`.
    /// An `NALError` it throws passes through; any other error becomes `NALError.hookFailed`.
    public typealias RequestHook = @Sendable (URLRequest, Service) async throws -> URLRequest

    /// Where requests go.
    public let transport: any Transport
    /// What the client does with each call besides sending it.
    public let settings: Settings
    private let inFlight: InFlightRequests?
    /// Where calls wait before their chain of frames exists, when the transport has such a place (`CallEntrance`).
    private let entrance: (any CallEntrance)?

    /// Where completion handlers and their progress run when a call names no queue; `nil` means the main queue.
    public var callbackQueue: DispatchQueue? { settings.callbackQueue }

    /// The methods de-duplication shares by default: GET and HEAD, which are safe to answer once for many callers.
    public static var safeMethods: Set<HTTPMethod> { [.get, .head] }

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - transport: where requests go; `DefaultTransport.make()` by default: the process's shared `CurlTransport` on
    ///     Linux, a new `URLSessionTransport` elsewhere (and on Linux without libcurl, or with
    ///     `NAL_DEFAULT_TRANSPORT=urlsession`).
    ///   - endpointMapping: changes an endpoint before it is prepared: add headers, swap the request type.
    ///   - willSend: changes the prepared request just before it is sent.
    ///   - deduplicatesRequests: identical concurrent requests share one call (`trackInProgress`). Off by default.
    ///   - deduplicatedMethods: which methods de-duplication shares: GET and HEAD by default. Two identical POSTs
    ///     are two actions; add a method here only when sending it once for all callers is what you mean.
    ///   - callbackQueue: where completion handlers run when a call names no queue (Moya's `callbackQueue`); the
    ///     main queue when `nil`.
    public convenience init(
        transport: any Transport = DefaultTransport.make(),
        endpointMapping: EndpointMapping? = nil,
        willSend: RequestHook? = nil,
        deduplicatesRequests: Bool = false,
        deduplicatedMethods: Set<HTTPMethod> = Client.safeMethods,
        callbackQueue: DispatchQueue? = nil
    ) {
        self.init(
            transport: transport,
            settings: Settings(
                endpointMapping: endpointMapping, willSend: willSend, deduplicatesRequests: deduplicatesRequests,
                deduplicatedMethods: deduplicatedMethods, callbackQueue: callbackQueue))
    }

    /// Creates a client with `settings`, which can be shared by several clients (see `Settings`).
    public init(transport: any Transport = DefaultTransport.make(), settings: Settings) {
        self.transport = transport
        self.settings = settings
        inFlight = settings.deduplicatesRequests ? InFlightRequests() : nil
        entrance = (transport as? any CallEntranceProviding)?.callEntrance
    }

    /// Sends the request for `target` and returns the validated response.
    public func request(
        _ target: Service, options: RequestOptions = RequestOptions()
    ) async throws(NALError)
        -> Response
    {
        try await request(target, options: options, progress: nil)
    }

    /// Sends the request for `target`, reporting its progress, and returns the validated response (its head, with
    /// the body in `streamedBody`, when `streamsBody`).
    ///
    /// `headers` are set on the prepared request, before hooks and middleware (a reconnection's `Last-Event-ID`).
    // Inlined into each caller: a call waiting at the transport's entrance holds one frame fewer.
    @inline(__always)
    func request(
        _ target: Service, options: RequestOptions, progress: TransferProgressHandler?, streamsBody: Bool = false,
        headers: [(name: String, value: String)] = []
    ) async throws(NALError) -> Response {
        let call = Call(progress: progress, streamsBody: streamsBody, headers: headers)
        if let endpointMapping = settings.endpointMapping {
            return try await perform(endpointMapping(target), target: target, options: options, call: call)
        }
        return try await perform(target, target: target, options: options, call: call)
    }

    /// How one call is made, besides its target and options.
    private struct Call {
        let progress: TransferProgressHandler?
        let streamsBody: Bool
        let headers: [(name: String, value: String)]
    }

    /// Sends the request for `target` and reports its progress, then the validated response: for uploads,
    /// downloads, or any call whose progress should show.
    ///
    /// ```swift
    /// for try await event in client.transfer(.archive(id: 7)) {
    ///     switch event {
    ///     case .progress(let progress): print(progress.fractionCompleted ?? 0)
    ///     case .completed(let response): print("saved to \(response.fileURL?.path ?? "-")")
    ///     }
    /// }
    /// ```
    ///
    /// The stream ends with `.completed`, or throws the call's `NALError`. A consumer that stops iterating (or whose
    /// task is cancelled) cancels the transfer. A retry starts its progress again, with `attempt` counting up.
    public func transfer(
        _ target: Service, options: RequestOptions = RequestOptions()
    ) -> AsyncThrowingStream<TransferEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream<TransferEvent, any Error>.makeStream()
        let task = Task {
            do throws(NALError) {
                let response = try await request(
                    target, options: options, progress: { continuation.yield(.progress($0)) })
                continuation.yield(.completed(response))
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Sends the request for `target` and decodes its body, or the value at `keyPath` (`"data.items"`).
    public func request<Value: Decodable>(
        _ target: Service, as type: Value.Type, atKeyPath keyPath: String? = nil,
        using decoder: JSONDecoder = JSONDecoder(), options: RequestOptions = RequestOptions()
    ) async throws(NALError) -> Value {
        try await request(target, options: options).decode(type, atKeyPath: keyPath, using: decoder)
    }

    /// Sends the request for `target` and calls `completion` with the validated response or the error, on
    /// `callbackQueue`; when the call names none, on the client's `callbackQueue`, else on the main queue. `progress`,
    /// when given, is called on the same queue as bytes move. The returned token cancels the call.
    @discardableResult
    public func request(
        _ target: Service, options: RequestOptions = RequestOptions(), callbackQueue: DispatchQueue? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil,
        completion: @escaping @Sendable (Result<Response, NALError>) -> Void
    ) -> Cancellable {
        let callbackQueue = deliveryQueue(for: callbackQueue)
        let token = Cancellable()
        var onQueue: TransferProgressHandler?
        if let progress {
            onQueue = { @Sendable value in callbackQueue.async { progress(value) } }
        }
        let reportProgress = onQueue
        token.attach(
            Task {
                let result: Result<Response, NALError>
                do throws(NALError) {
                    result = .success(try await request(target, options: options, progress: reportProgress))
                } catch {
                    result = .failure(error)
                }
                if token.claimDelivery() { callbackQueue.async { completion(result) } }
            },
            onCancel: { callbackQueue.async { completion(.failure(.cancelled)) } })
        return token
    }

    /// The queue a completion handler runs on: the call's, else the client's, else the main queue.
    func deliveryQueue(for call: DispatchQueue?) -> DispatchQueue {
        call ?? callbackQueue ?? .main
    }

    /// `Type.case` without associated values: payloads can hold secrets (`.login(password:)`), so logs never
    /// show them.
    package static func name(of target: Service) -> String {
        target.loggableName
    }

    private func perform(
        _ endpoint: some RemoteService, target: Service, options: RequestOptions, call: Call
    )
        async throws(NALError) -> Response
    {
        let prepared = try endpoint.preparedRequest()
        try RequestOptions.validate(options.timeout, setting: "RequestOptions.timeout")
        try RequestOptions.validate(options.totalTimeout, setting: "RequestOptions.totalTimeout")
        try RequestOptions.validate(size: options.maximumResponseSize, setting: "RequestOptions.maximumResponseSize")
        var preparedRequest = prepared.request
        if let timeout = options.timeout { preparedRequest.timeoutInterval = timeout }
        for (name, value) in call.headers { try preparedRequest.setValidatedHeader(value, forName: name) }
        let request = preparedRequest
        let total = options.totalTimeout ?? endpoint.totalTimeout
        let deadline = total.map { ContinuousClock.now + .milliseconds(Int64(($0 * 1000).rounded(.up))) }
        // Made only for a call with a deadline: an indirect case costs an allocation, and most calls have none.
        let totalTimeout = deadline.map { _ in
            NALError.timedOut(TimeoutFailure(limit: .total, seconds: total ?? 0, url: request.url))
        }
        let idleTimeout = options.timeout ?? endpoint.timeout
        guard let entrance else {
            return try await run(
                request, of: endpoint, target: target, kind: prepared.kind, options: options, call: call,
                deadline: deadline, totalTimeout: totalTimeout, idleTimeout: idleTimeout)
        }
        // A call that would only wait in the transport waits here, before its chain of frames exists.
        var waited: Duration?
        if let ticket = entrance.ticket(
            for: request, idleTimeout: idleTimeout, deadline: deadline, onDeadline: totalTimeout)
        {
            let failure = await withTaskCancellationHandler {
                await withCheckedContinuation { entrance.park(ticket, continuation: $0) }
            } onCancel: {
                entrance.withdraw(ticket)
            }
            if let failure { throw failure }
            waited = .now - ticket.since
        }
        defer { entrance.leave(request, afterWaiting: waited != nil) }
        return try await run(
            request, of: endpoint, target: target, kind: prepared.kind, options: options, call: call,
            deadline: deadline, totalTimeout: totalTimeout, idleTimeout: idleTimeout, waited: waited)
    }

    /// Sends the prepared request within the call's deadline, then validates the response.
    // Never inlined into `perform`: a call waiting at the entrance must not hold this function's frame.
    @inline(never)
    private func run(
        _ request: URLRequest, of endpoint: some RemoteService, target: Service, kind: RequestKind,
        options: RequestOptions, call: Call, deadline: ContinuousClock.Instant?, totalTimeout: NALError?,
        idleTimeout: TimeInterval?, waited: Duration? = nil
    ) async throws(NALError) -> Response {
        // Without a deadline the race never reads its error.
        let response = try await CallRace.run(deadline: deadline, onDeadline: totalTimeout ?? .cancelled) {
            [self] () async throws(NALError) -> Response in
            try await send(
                request, target: target, kind: kind, options: options, deadline: deadline,
                progress: call.progress, streamsBody: call.streamsBody, idleTimeout: idleTimeout,
                waited: waited)
        }
        if let body = response.streamedBody, let deadline, let totalTimeout {
            BodyDeadline.enforce(deadline, on: body, with: totalTimeout)
        }
        let validation = endpoint.validation
        guard validation.accepts(statusCode: response.statusCode) else {
            CoreLog.requestOperation.debug(
                "\(response.statusCode) from \(Self.name(of: target), privacy: .public) rejected by validation")
            if response.streamedBody != nil {
                throw .unacceptableStatusCode(await ResponseStream.headWithBodyStart(of: response))
            }
            throw .unacceptableStatusCode(response)
        }
        CoreLog.requestOperation.debug(
            """
            \(response.statusCode) from \(Self.name(of: target), privacy: .public), \
            \(response.data.count) bytes in \(response.timing.duration.description, privacy: .public)
            """)
        return response
    }

    /// Runs the hooks and the transport, sharing the call with identical ones when de-duplication is on.
    private func send(
        _ request: URLRequest, target: Service, kind: RequestKind, options: RequestOptions,
        deadline: ContinuousClock.Instant?, progress: TransferProgressHandler?, streamsBody: Bool,
        idleTimeout: TimeInterval?, waited: Duration?
    ) async throws(NALError) -> Response {
        var request = request
        if let willSend = settings.willSend {
            do {
                request = try await willSend(request, target)
            } catch let error as NALError {
                throw error
            } catch is CancellationError {
                throw .cancelled
            } catch {
                throw .hookFailed(error)
            }
        }
        let context = TransportContext(
            endpoint: target, kind: kind, options: options, deadline: deadline, progress: progress,
            streamsBody: streamsBody, idleTimeout: idleTimeout
        ).waited(waited)
        // A call that reports progress or streams is its caller's own; sharing it would send one caller's events or
        // chunks to another.
        guard let inFlight, progress == nil, !streamsBody,
            settings.deduplicatedMethods.contains(HTTPMethod(rawValue: request.httpMethod ?? "GET")),
            let key = InFlightRequests.Key(request, kind: kind, options: options, idleTimeout: idleTimeout)
        else {
            return try await transport.send(request, context: context)
        }
        let transport = transport
        let shared = request
        return try await inFlight.run(key) { () async -> Result<Response, NALError> in
            do throws(NALError) {
                return .success(try await transport.send(shared, context: context))
            } catch {
                return .failure(error)
            }
        }.get()
    }
}
