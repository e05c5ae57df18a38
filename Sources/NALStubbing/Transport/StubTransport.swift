public import NALCore
import NALLogging

#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// A transport that answers from stubs instead of the network.
///
/// ```swift
/// let stubs = StubTransport<GitHub>(.immediate)
/// stubs.stub(.userProfile("octocat"), with: .json(User(login: "octocat")))
/// stubs.stub(.zen, with: .string("busy", status: 503), .string("Keep it logically awesome."))
/// let client = Client<GitHub>(middleware: [RetryMiddleware()], transport: stubs)
/// ```
///
/// A target registered with `stub(_:with:)` is answered with its responses in order, the last one repeating; it is
/// matched on the prepared request's method, URL and body, so stub data stays in the test and out of the production
/// enum. Any other target is answered by the `StubBehavior`.
///
/// Stubbed calls behave as real ones: they go through middleware and validation, the idle timeout in the request
/// and the Client's total timeout apply, a body over the in-memory limit fails with `responseTooLarge`, network
/// errors and truncation fail as URLSession would, and redirects are followed by the same rules as
/// `URLSessionTransport` (`redirectPolicy`); the request a redirect leads to is answered by a response registered
/// for it, or else by the target's `testData`.
public final class StubTransport<Service: RemoteService>: Transport {
    private struct Registration: Sendable {
        let responses: [StubResponse]
        var served = 0
    }

    private let behavior: StubBehavior<Service>
    private let realTransport: any Transport
    private let redirectPolicy: RedirectPolicy
    private let maximumResponseSize: Int
    private let registrations = Locked<[RequestKey: Registration]>([:])
    private let journalEntries: Locked<StubJournal>
    private static var log: Logger { Logger(nal: .stubbing) }

    /// Creates a transport.
    ///
    /// - Parameters:
    ///   - behavior: how to answer targets without registered responses.
    ///   - realTransport: where `.never` sends requests; `DefaultTransport.make()` by default.
    ///   - redirectPolicy: whether stubbed redirects are followed, as `URLSessionTransport` does.
    ///   - maximumResponseSize: the in-memory limit for a body, as `URLSessionTransport`'s; 0 or more.
    ///   - journalCapacity: how many requests `requests` keeps (the oldest are dropped); 0 or more.
    ///   - journaledBodyLimit: the largest body `journal` keeps whole; a larger one is kept as its SHA-256. 0 or
    ///     more.
    ///
    /// A negative size or capacity is raised to 0, with a warning.
    public init(
        _ behavior: StubBehavior<Service>,
        realTransport: any Transport = DefaultTransport.make(),
        redirectPolicy: RedirectPolicy = .follow,
        maximumResponseSize: Int = URLSessionTransport.defaultMaximumResponseSize,
        journalCapacity: Int = StubServer.defaultJournalCapacity,
        journaledBodyLimit: Int = StubServer.defaultJournaledBodyLimit
    ) {
        self.behavior = behavior
        self.realTransport = realTransport
        self.redirectPolicy = redirectPolicy
        self.maximumResponseSize = SettingClamp.clamp(
            maximumResponseSize, atLeast: 0, "StubTransport maximumResponseSize", log: Self.log)
        journalEntries = Locked(
            StubJournal(
                capacity: SettingClamp.clamp(
                    journalCapacity, atLeast: 0, "StubTransport journalCapacity", log: Self.log),
                bodyLimit: SettingClamp.clamp(
                    journaledBodyLimit, atLeast: 0, "StubTransport journaledBodyLimit", log: Self.log)))
    }

    /// The requests this transport was sent, oldest first (redirects included), at most `journalCapacity`; a body
    /// over the journal's limit is left out (see `journal` for its digest).
    public var requests: [URLRequest] {
        journalEntries.withLock { $0.requests }.map(\.urlRequest)
    }

    /// The requests this transport was sent, as a `StubServer` journals them: bodies (an upload's in-memory bytes
    /// included) up to the limit, and larger ones as their SHA-256.
    public var journal: [RecordedRequest] { journalEntries.withLock { $0.requests } }

    /// Forgets the requests sent so far.
    public func clearRequests() {
        journalEntries.withLock { $0.removeAll() }
    }

    /// Answers `target` with `responses` in order; the last one repeats. The target is matched on the method, URL
    /// and body of its prepared request.
    public func stub(_ target: Service, with responses: StubResponse...) {
        let prepared: URLRequest
        do {
            prepared = try target.urlRequest()
        } catch {
            Self.log.error(
                "stub for \(String(describing: type(of: target)), privacy: .public) ignored: \(error, privacy: .public)"
            )
            return
        }
        let key = RequestKey(prepared, uploadedData: Self.uploadedData(of: target.requestType.kind))
        for problem in responses.compactMap(\.statusProblem) {
            Self.log.error(
                "a stub for \(String(describing: type(of: target)), privacy: .public) \(problem, privacy: .public)")
        }
        registrations.withLock { $0[key] = Registration(responses: responses.isEmpty ? [StubResponse()] : responses) }
    }

    /// Forgets every registered response.
    public func removeAllStubs() {
        registrations.withLock { $0.removeAll() }
    }

    /// Answers `request` from a registered response or the behaviour, following stubbed redirects.
    public func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
        let startDate = Date()
        let clock = ContinuousClock()
        let start = clock.now
        let uploadSize = try Self.uploadSize(of: context.kind)
        let progress = context.progressReporter(totalBytesToSend: uploadSize)
        var download: DownloadJob?
        if case .download(let destination) = context.kind {
            download = await DownloadJob.make(destination, for: request)
        }
        var current = request
        var redirects = 0
        // A stub has no idle timeout of its own: URLSession's default.
        func idleTimeout(of request: URLRequest) throws(NALError) -> TimeInterval {
            try context.idleTimeout(of: request, otherwise: 60, fallbackSetting: "URLRequest timeoutInterval")
        }
        while true {
            let recorded = RecordedRequest(
                method: current.httpMethod ?? "GET", url: current.url ?? URL(fileURLWithPath: "/"),
                headers: current.allHTTPHeaderFields ?? [:],
                body: Self.uploadedData(of: context.kind) ?? current.httpBody ?? Data())
            // Hashed (a large body's digest) outside the lock.
            let journaled = recorded.journaled(bodyLimit: journalEntries.withLock { $0.bodyLimit })
            _ = journalEntries.withLock { $0.append(journaled: journaled) }
            guard let stubbed = response(for: current, context: context, followingRedirect: redirects > 0) else {
                return try await realTransport.send(current, context: context)
            }
            if let uploadSize, redirects == 0 {
                try await Self.sendUpload(of: uploadSize, at: stubbed.bytesPerSecond, progress: progress)
            }
            if context.streamsBody, download == nil, stubbed.redirectLocation == nil {
                let (http, body) = try await playStreaming(stubbed, for: current, idleTimeout: idleTimeout(of: current))
                stubbed.onDelivered.map { onDelivered in body.whenEnded { _ in onDelivered(recorded) } }
                return Response(
                    request: request, httpResponse: http, data: Data(),
                    timing: ResponseTiming(start: startDate, duration: clock.now - start), streamedBody: body)
            }
            let (http, body): (HTTPURLResponse, Data)
            do {
                (http, body) = try await play(
                    stubbed, for: current, idleTimeout: idleTimeout(of: current), context: context,
                    download: download, progress: progress)
            } catch {
                await download?.abandonOffThread()
                throw error
            }
            if let location = stubbed.redirectLocation, !location.isEmpty,
                let next = redirectPolicy.nextRequest(after: http, to: current)
            {
                redirects += 1
                guard redirects <= URLSessionTransport.maximumRedirects else {
                    throw .transport(
                        URLError(.httpTooManyRedirects, userInfo: [NSURLErrorFailingURLErrorKey: next.url as Any]))
                }
                current = next
                continue
            }
            let timing = ResponseTiming(start: startDate, duration: clock.now - start)
            defer { stubbed.onDelivered?(recorded) }
            guard let download else {
                progress?.complete()
                return Response(request: request, httpResponse: http, data: body, timing: timing)
            }
            switch try await download.concludeOffThread(http) {
            case .downloaded(let file, let response):
                progress?.complete()
                return Response(request: request, httpResponse: response, data: Data(), timing: timing, fileURL: file)
            case .notDownloaded, .restart:
                return Response(request: request, httpResponse: http, data: body, timing: timing)
            }
        }
    }

    /// The bytes of an upload from memory, which `URLRequest.httpBody` does not hold.
    private static func uploadedData(of kind: RequestKind) -> Data? {
        if case .upload(.data(let data)) = kind { return data }
        return nil
    }

    /// The size of an upload's body, checking that its files can be read; `nil` for other requests.
    private static func uploadSize(of kind: RequestKind) throws(NALError) -> Int64? {
        switch kind {
        case .data, .download: nil
        case .upload(.data(let data)): Int64(data.count)
        case .upload(.file(let url)): try FileAccess.readableFileSize(url)
        case .upload(.multipart(let parts)): try MultipartEncoder(parts: parts).contentLength()
        }
    }

    /// Reports an upload's bytes as sent, in chunks, at the stub's speed when it is throttled.
    private static func sendUpload(
        of size: Int64, at bytesPerSecond: Int?, progress: ProgressReporter?
    ) async throws(NALError) {
        let chunk = Int64(bytesPerSecond.map { max(1, min(StubPlayback.chunkSize, $0 / 10)) } ?? StubPlayback.chunkSize)
        var sent: Int64 = 0
        while sent < size {
            sent = min(size, sent + chunk)
            if let bytesPerSecond {
                do {
                    try await Task.sleep(for: .nanoseconds(chunk * 1_000_000_000 / Int64(bytesPerSecond)))
                } catch {
                    throw .cancelled
                }
            }
            progress?.sent(sent, of: size)
        }
    }

    /// The registered response for `request`, or the behaviour's; `nil` for `.never`. A followed redirect has no
    /// target of its own: it is answered by a response registered for its URL, or else by the target's `testData`.
    private func response(
        for request: URLRequest, context: TransportContext, followingRedirect: Bool
    )
        -> StubResponse?
    {
        let key = RequestKey(request, uploadedData: Self.uploadedData(of: context.kind))
        let registered = registrations.withLock { registrations -> StubResponse? in
            guard var registration = registrations[key] else { return nil }
            let response = registration.responses[min(registration.served, registration.responses.count - 1)]
            registration.served += 1
            registrations[key] = registration
            return response
        }
        if let registered {
            Self.log.debug(
                "stubbed \(request.httpMethod ?? "GET", privacy: .public) \(DisplayText.url(request.url), privacy: .public)"
            )
            return registered
        }
        let testData = context.endpoint.testData
        if followingRedirect { return StubResponse(body: testData) }
        switch behavior {
        case .never: return nil
        case .immediate: return StubResponse(body: testData)
        case .delayed(let delay): return StubResponse(body: testData).delayed(by: delay)
        case .custom(let answer):
            // An Endpoint that wraps a target (Moya's MultiTarget) is answered as that target.
            guard let target = (context.endpoint as? Service) ?? (context.endpoint.originalTarget as? Service) else {
                return StubResponse(body: testData)
            }
            return answer(target)
        }
    }

    /// Plays a stub to a caller that streams: returns at the head, and plays the body into the stream in a task of
    /// its own, at the stub's pace, waiting while the consumer is behind. The idle timeout applies between pieces.
    private func playStreaming(
        _ stub: StubResponse, for request: URLRequest, idleTimeout: TimeInterval
    ) async throws(NALError) -> (HTTPURLResponse, StreamedBody) {
        let playback = StubPlayback(response: stub)
        let idle = Duration.milliseconds(Int64((idleTimeout * 1000).rounded(.up)))
        let idleFailure = NALError.timedOut(TimeoutFailure(limit: .idle, seconds: idleTimeout, url: request.url))
        if let problem = stub.statusProblem {
            throw .transport(
                URLError(
                    .badServerResponse,
                    userInfo: [NSLocalizedDescriptionKey: "the stub for \(DisplayText.url(request.url)) \(problem)"]))
        }
        if let delay = stub.delay, delay > idle {
            try? await Task.sleep(for: idle)
            if Task.isCancelled { throw .cancelled }
            throw idleFailure
        }
        do {
            try await playback.waitForStart()
        } catch {
            throw error.nalError(url: request.url)
        }
        guard let url = request.url,
            let http = HTTPURLResponse(
                url: url, statusCode: stub.status, httpVersion: "HTTP/1.1", headerFields: playback.headers)
        else { throw .transport(URLError(.badURL)) }
        let (body, writer) = StreamedBody.makeStream()
        let player = Task {
            if let interval = stub.chunkInterval, interval > idle {
                // The server would fall silent for longer than the idle timeout after its first piece.
                try? await playback.playFirstPiece { writer.append($0) }
                try? await Task.sleep(for: idle)
                writer.finish(throwing: Task.isCancelled ? .cancelled : idleFailure)
                return
            }
            do throws(StubPlayback.Failure) {
                try await playback.playBody(pacing: { await writer.awaitCapacity() }) { chunk throws(NALError) in
                    guard writer.append(chunk) else { throw .cancelled }
                }
                writer.finish()
            } catch {
                writer.finish(throwing: error.nalError(url: request.url))
            }
        }
        writer.onCancel { player.cancel() }
        return (http, body)
    }

    /// Plays a stub as URLSessionTransport would receive it: idle timeout, in-memory limit, failures.
    private func play(
        _ stub: StubResponse, for request: URLRequest, idleTimeout idle: TimeInterval, context: TransportContext,
        download: DownloadJob?, progress: ProgressReporter?
    ) async throws(NALError)
        -> (HTTPURLResponse, Data)
    {
        let playback = StubPlayback(response: stub)
        let limit = context.options.maximumResponseSize ?? maximumResponseSize
        if let problem = stub.statusProblem {
            throw .transport(
                URLError(
                    .badServerResponse,
                    userInfo: [NSLocalizedDescriptionKey: "the stub for \(DisplayText.url(request.url)) \(problem)"]))
        }
        do {
            let idleDuration = Duration.milliseconds(
                Int64((min(idle, RequestOptions.maximumTimeout) * 1000).rounded(.up)))
            if let delay = stub.delay, delay > idleDuration {
                try? await Task.sleep(for: idleDuration)
                if Task.isCancelled { throw NALError.cancelled }
                throw NALError.timedOut(TimeoutFailure(limit: .idle, seconds: idle, url: request.url))
            }
            try await playback.waitForStart()
            guard let url = request.url,
                let http = HTTPURLResponse(
                    url: url, statusCode: stub.status, httpVersion: "HTTP/1.1", headerFields: playback.headers)
            else { throw NALError.transport(URLError(.badURL)) }
            // A download's success goes to its file, unlimited; anything else is kept in memory, up to the limit.
            let route = try download?.route(for: http) ?? .memory
            switch route {
            case .memory:
                progress?.expectReceiving(playback.bodyLength.map(Int64.init), alreadyReceived: 0)
                if let length = playback.bodyLength, length > limit, stub.truncationPoint.map({ $0 > limit }) ?? true {
                    throw NALError.responseTooLarge(limit: limit, url: request.url)
                }
            case .file(let alreadyReceived, let total):
                progress?.expectReceiving(total, alreadyReceived: alreadyReceived)
            }
            var body = Data()
            try await playback.playBody { chunk throws(NALError) in
                if let download, route != .memory {
                    try download.write(chunk)
                } else {
                    guard body.count + chunk.count <= limit else {
                        throw .responseTooLarge(limit: limit, url: request.url)
                    }
                    body.append(chunk)
                }
                progress?.received(chunk.count)
            }
            return (http, body)
        } catch let error as NALError {
            throw error
        } catch let failure as StubPlayback.Failure {
            throw failure.nalError(url: request.url)
        } catch {
            throw .transport(URLError(.unknown))
        }
    }
}
