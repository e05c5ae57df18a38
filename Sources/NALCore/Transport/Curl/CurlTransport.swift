#if os(Linux)
    import CCurl
    public import Foundation
    public import FoundationNetworking
    import NALLogging
    import Synchronization

    /// Sends requests with libcurl's multi interface directly, on one event-loop thread, without URLSession's
    /// queues and delegate hops: more than twice as fast per call, with about five times the throughput, on
    /// loopback (see the README's benchmarks). Linux only: it opens the libcurl that FoundationNetworking links
    /// (`libcurl.so.4`, or the file named by the `NAL_LIBCURL` environment variable) at run time, so nothing has to
    /// be installed.
    ///
    /// ```swift
    /// let client = Client<GitHub>(transport: try CurlTransport())
    /// ```
    ///
    /// It keeps `URLSessionTransport`'s contract: framing headers are NAL's; NAL follows redirects (`RedirectPolicy`)
    /// with the same credential rules; idle and total timeouts with millisecond precision; the in-memory limit counts
    /// bytes after decompression and ends the transfer at the first byte past it; a content coding (`gzip`,
    /// `deflate`, the ones it offers) is decoded by NAL, and one cut short fails the call; uploads stream from disk;
    /// downloads resume and move into place atomically; progress; streamed bodies pause the transfer while their
    /// consumer is behind (nothing spills to disk).
    ///
    /// - Connections are reused, at most `maximumConnectionsPerHost` at once per host; HTTP/2 over TLS when both
    ///   sides agree on it (ALPN), HTTP/1.1 otherwise. TLS is always verified: against the system's certificate
    ///   authorities, or those of a PEM file for a private CA; `tls` adds a client certificate, pinned public keys
    ///   and the oldest TLS version (see `TLSConfiguration` and the "TLS and trust" article). A TLS check that
    ///   fails is `NALError.tls`, which names the check.
    /// - Proxies come from the environment as libcurl reads them: `http_proxy` (lowercase only), `https_proxy`,
    ///   `all_proxy` and `no_proxy`, read when each transfer starts.
    /// - Cookies: none are stored or sent unless you pass a `cookieStorage`; then `Set-Cookie` fields, redirects'
    ///   included, go into it and matching cookies go out with each request that has no `Cookie` field of its own
    ///   (as URLSession does with its configuration's storage, unless the request's `httpShouldHandleCookies` is
    ///   false).
    /// - `StubServer` (a `URLProtocol`) cannot see this transport; give a test `StubTransport` instead.
    public final class CurlTransport: Transport {
        /// The most redirects one call follows.
        public static let maximumRedirects = RedirectPolicy.mostFollowed

        let loop: CurlEventLoop
        /// The most bytes of body kept in memory; more ends the call with `NALError.responseTooLarge`. Downloads to
        /// a file are not limited by it. It is the guard against a body larger than memory: keep it below what the
        /// process may use (a body the system cannot hold stops the process), and download or stream larger ones.
        public let maximumResponseSize: Int
        /// Which redirects are followed, and how.
        public let redirectPolicy: RedirectPolicy
        /// The idle timeout of a call whose caller chose none (see `TransportContext.idleTimeout`).
        public let idleTimeout: TimeInterval
        /// The most connections open at once to one host: over HTTP/1.1 more calls wait for one of them; over
        /// HTTP/2 calls share a connection. Calls past what the connections can carry (this many per plain-http
        /// origin, 100 times as many per https origin, for HTTP/2's streams) wait in the transport, first come first
        /// served, holding none of libcurl's memory.
        public let maximumConnectionsPerHost: Int
        /// Where cookies are kept, or `nil` for none.
        public let cookieStorage: HTTPCookieStorage?
        /// The size up to which a multipart body made only of in-memory parts is built in memory.
        public let multipartMemoryThreshold: Int
        /// How TLS connections are checked: trusted authorities, client certificate, pins, oldest version.
        public let tls: TLSConfiguration
        /// The PEM file of the certificate authorities that TLS trusts instead of the system's (`tls.trustRoots`'s
        /// file), or `nil` for the system's.
        public var certificateAuthorities: URL? {
            if case .pemFile(let file) = tls.trustRoots { return file }
            return nil
        }
        /// `tls`, checked.
        private let checkedTLS: TLSConfiguration.Checked

        /// Creates a transport and its event-loop thread.
        ///
        /// - Parameters:
        ///   - maximumResponseSize: the most bytes of body kept in memory (see the property); 0 or more. A negative
        ///     value is raised to 0 (only empty bodies are kept), with a warning.
        ///   - redirectPolicy: which redirects are followed.
        ///   - idleTimeout: the idle timeout of a call whose caller chose none, in seconds: more than 0, at most
        ///     `RequestOptions.maximumTimeout`; anything else throws (see below).
        ///   - maximumConnectionsPerHost: the most connections open at once to one host; at least 1. A smaller value
        ///     is raised to 1 (libcurl would read 0 as no limit), with a warning.
        ///   - cookieStorage: where cookies are kept; `nil`, the default, keeps none.
        ///   - multipartMemoryThreshold: the size up to which a multipart body of in-memory parts is built in memory;
        ///     0 or more. A negative value is raised to 0 (every multipart body streams), with a warning.
        ///   - certificateAuthorities: a PEM file of the certificate authorities to trust instead of the system's:
        ///     the same as `tls: TLSConfiguration(trustRoots: .pemFile(file))`, kept for code written before `tls`.
        ///     Give one or the other.
        ///   - tls: how TLS connections are checked (see `TLSConfiguration`). Its files are read and checked here.
        /// - Throws: `NALError.transportUnavailable` when libcurl cannot be loaded or set up (the message says from
        ///   where, and why); `NALError.tls` (`.localFile`, `.invalidPin`) when `certificateAuthorities` and
        ///   `tls.trustRoots` name different files, or when a file of the TLS configuration is missing, unreadable,
        ///   not a regular file or not PEM, or a pin is not a SHA-256 digest; `NALError.invalidRequest` for an idle
        ///   timeout that is not a positive number of seconds.
        public init(
            maximumResponseSize: Int = URLSessionTransport.defaultMaximumResponseSize,
            redirectPolicy: RedirectPolicy = .follow,
            idleTimeout: TimeInterval = 60,
            maximumConnectionsPerHost: Int = 6,
            cookieStorage: HTTPCookieStorage? = nil,
            multipartMemoryThreshold: Int = URLSessionTransport.defaultMultipartMemoryThreshold,
            certificateAuthorities: URL? = nil,
            tls: TLSConfiguration = TLSConfiguration()
        ) throws(NALError) {
            try Self.loadLibrary()
            try RequestOptions.validate(idleTimeout, setting: "CurlTransport idleTimeout")
            var tls = tls
            if let certificateAuthorities {
                guard tls.trustRoots == .system || tls.trustRoots == .pemFile(certificateAuthorities) else {
                    throw .tls(
                        TLSFailure(
                            check: .localFile(certificateAuthorities), url: nil,
                            detail: "is named by certificateAuthorities while tls.trustRoots names another file; "
                                + "give one"))
                }
                tls.trustRoots = .pemFile(certificateAuthorities)
            }
            checkedTLS = try tls.checked()
            self.tls = tls
            self.maximumResponseSize = SettingClamp.clamp(
                maximumResponseSize, atLeast: 0, "CurlTransport maximumResponseSize", log: CoreLog.request)
            self.redirectPolicy = redirectPolicy
            self.idleTimeout = idleTimeout
            // libcurl reads 0 as "no limit".
            self.maximumConnectionsPerHost = SettingClamp.clamp(
                maximumConnectionsPerHost, atLeast: 1, "CurlTransport maximumConnectionsPerHost", log: CoreLog.request)
            self.cookieStorage = cookieStorage
            self.multipartMemoryThreshold = SettingClamp.clamp(
                multipartMemoryThreshold, atLeast: 0, "CurlTransport multipartMemoryThreshold", log: CoreLog.request)
            loop = try CurlEventLoop(maximumConnectionsPerHost: self.maximumConnectionsPerHost)
        }

        deinit {
            loop.shutDown()
        }

        /// Shuts the transport down, as AsyncHTTPClient's `shutdown()` does: calls made from now on fail at once with
        /// `NALError.transportUnavailable`; calls in flight, those waiting for a connection included, are cancelled
        /// (they end with `NALError.cancelled`, and so does a streamed body still being read; one between two
        /// transfers, following a redirect or resuming a download, gets `transportUnavailable`); returns once the
        /// event loop has ended, its connections are closed and libcurl's spare handles are freed. A cancelled
        /// download hears of it once its file's last write is done, which may be just after. Calling it again does
        /// nothing more.
        ///
        /// A transport that is simply dropped ends gracefully instead: its calls in flight finish (a streamed body may
        /// outlive it), then its thread ends.
        ///
        /// `DefaultTransport`'s shared transport, which every client that names no transport uses, refuses: it logs a
        /// warning and returns.
        public func shutdown() async {
            guard !isProcessDefault.load(ordering: .relaxed) else {
                CoreLog.request.warning(
                    """
                    shutdown() ignored: this CurlTransport is DefaultTransport's, shared by every client that names \
                    no transport; make a CurlTransport of your own to shut one down
                    """)
                return
            }
            isShutDown.store(true, ordering: .relaxed)
            await loop.shutDownNow()
        }

        private let isShutDown = Atomic<Bool>(false)
        /// Whether this is the transport that `DefaultTransport` shares (see `CurlTransport+ProcessDefault.swift`).
        let isProcessDefault = Atomic<Bool>(false)

        /// What a call made after `shutdown()` is told.
        static let shutDownMessage = "this CurlTransport has been shut down (shutdown()); make a new one"

        /// A download's writes, as tests see them.
        private let downloadWrites = CurlDownloadWriteProbe()

        /// Holds back every write of a download's file by `delay`, as a slow disk would. For tests.
        package func slowDownloadWrites(by delay: Duration) {
            let nanoseconds = delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
            downloadWrites.delayNanoseconds.store(Int(nanoseconds), ordering: .relaxed)
        }

        /// The most bytes that waited for a download's writes, how many times a download paused for them, and how
        /// many slowed writes ran on the event loop. For tests.
        package var downloadWriteBacklog: (peak: Int, pauses: Int, writesOnLoop: Int) {
            (
                downloadWrites.peakWaiting.load(ordering: .relaxed), downloadWrites.pauses.load(ordering: .relaxed),
                downloadWrites.writesOnLoop.load(ordering: .relaxed)
            )
        }

        /// How long libcurl handles kept for reuse wait, once calls stop ending, before they are freed. For tests.
        package func setSpareHandleLifetime(_ lifetime: Duration) { loop.handles.idleLifetime = lifetime }

        /// The transport's event-loop thread as a task executor. Code that prefers it
        /// (`withTaskExecutorPreference(transport.executor) { … }`, and the child tasks made there) runs on that
        /// thread between libcurl's work, so that a call never crosses to another thread and back: less CPU and less
        /// latency per call (see the benchmarks in `Benchmarks/README.md`).
        ///
        /// It is an event loop, with an event loop's rule: while a job runs, no transfer of this transport moves.
        /// Keep to calls and light work; blocking work or long computation belongs elsewhere. What runs there:
        /// nonisolated code and the methods of actors without an executor of their own, of the preferring task and its
        /// child tasks; not `Task {}` or `Task.detached` made inside (give them `Task(executorPreference:)`), and not
        /// code isolated to the main actor or to an actor with a custom executor. Jobs run in the order they came,
        /// whatever their priority. It is not a `SerialExecutor`: no actor can make it its own. Keep the transport
        /// alive while tasks prefer it; once it is gone and its last transfer has ended, work that still prefers its
        /// executor runs on the global executor.
        public var executor: any TaskExecutor { loop }

        /// How many transfers libcurl holds now: a call's handle, and what it holds, leaves libcurl before the call
        /// returns or throws. For tests.
        package var transfersInLibcurl: Int { loop.transfersInLibcurl }

        /// The most transfers libcurl has held at once since the transport was made. For tests.
        package var peakTransfersInLibcurl: Int { loop.peakTransfersInLibcurl }

        /// How many calls wait for their origin's admission slot, holding no easy handle (see `CurlAdmission`). For
        /// tests.
        package var waitingCallCount: Int { loop.waitingCallCount }

        /// How many `Client` calls wait at the transport's entrance, before their chain of frames exists (see
        /// `CallEntrance`). For tests.
        package var entranceWaitingCount: Int { loop.entranceWaitingCount }

        /// How many easy handles of calls that ended well wait to be reused (at most 16). For tests.
        package var spareHandleCount: Int { loop.handles.spareCount }

        /// How many libcurl easy handles are alive in this process, every transport's spares included. For tests.
        package static var easyHandlesAlive: Int { CurlHandlePool.handlesAlive.load(ordering: .relaxed) }

        /// Makes the event loop's next `curl_multi_perform` report the multi interface's `code`. For tests.
        package func injectMultiFailure(_ code: Int32) { loop.injectMultiFailure(code) }

        /// Whether the event loop's thread has ended (after `shutdown()`). For tests.
        package var eventLoopHasEnded: Bool { loop.hasEnded }

        /// The event loop, for tests to watch it end (weakly) once the transport is gone.
        package var eventLoop: AnyObject { loop }

        private static func loadLibrary() throws(NALError) {
            guard let failure = nal_curl_load() else { return }
            throw .transportUnavailable(String(cString: failure))
        }

        typealias Exchange = TransferExchange

        /// Sends `request`, follows redirects, and collects the whole body, streams it, or writes a download's file.
        /// The URLs inside an error's `URLError` (its failing URL, its message, what it wraps) have their secrets
        /// redacted.
        public func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
            guard !isShutDown.load(ordering: .relaxed) else { throw .transportUnavailable(Self.shutDownMessage) }
            do {
                return try await perform(request, context: context)
            } catch {
                throw error.redactingURLs()
            }
        }

        private func perform(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
            try OutgoingRequest.check(request)
            var sent = request
            let upload = try UploadBody.prepare(
                for: context.kind, of: &sent,
                multipartMemoryThreshold: multipartMemoryThreshold)
            var reported = request
            if let type = sent.value(forHTTPHeaderField: "Content-Type") {
                reported.setValue(type, forHTTPHeaderField: "Content-Type")
            }
            let exchange = Exchange(
                limit: context.options.maximumResponseSize ?? maximumResponseSize,
                idleTimeout: try context.idleTimeout(
                    of: request, otherwise: idleTimeout, fallbackSetting: "CurlTransport idleTimeout"),
                streamsBody: context.streamsBody && !context.kind.isDownload,
                // Off the event loop: a slow handler must not hold every transfer back.
                progress: context.progressReporter(totalBytesToSend: upload?.length, deliversAsynchronously: true),
                // A download's later attempts (resuming after a cut) would count from it too: they wait afresh.
                waitedAtEntrance: context.kind.isDownload ? nil : context.waitedAtEntrance,
                letInAtEntrance: context.waitedAtEntrance != nil)
            let started = (date: Date(), instant: ContinuousClock.now)
            if case .download(let destination) = context.kind {
                do {
                    let response = try await download(sent, as: reported, to: destination, exchange, started: started)
                    await exchange.progress?.delivered()
                    return response
                } catch {
                    await exchange.progress?.delivered()
                    throw error
                }
            }
            let reply: CurlTransfer.Reply
            do {
                reply = try await followingRedirects(sent, upload: upload, exchange)
            } catch {
                // No event arrives after the call has ended.
                await exchange.progress?.delivered()
                throw error
            }
            if reply.stream == nil { exchange.progress?.complete() }
            await exchange.progress?.delivered()
            return Response(
                request: reported, head: reply.head, data: reply.data,
                timing: ResponseTiming(start: started.date, duration: .now - started.instant),
                streamedBody: reply.stream)
        }

        /// Writes the body to `destination`'s partial file, resumes, and moves the file into place: `DownloadJob`, as
        /// URLSessionTransport does.
        private func download(
            _ request: URLRequest, as original: URLRequest, to destination: DownloadDestination, _ exchange: Exchange,
            started: (date: Date, instant: ContinuousClock.Instant)
        ) async throws(NALError) -> Response {
            try await DownloadJob.run(request, as: original, to: destination, exchange, started: started) {
                attempt, exchange throws(NALError) in
                let reply = try await followingRedirects(attempt, upload: nil, exchange)
                return (reply.head.response, reply.data)
            }
        }

        /// Sends `request` and the redirects that follow; an upload's body goes along where the method is kept (307,
        /// 308).
        private func followingRedirects(
            _ request: URLRequest, upload: UploadBody?, _ exchange: Exchange
        ) async throws(NALError) -> CurlTransfer.Reply {
            var sent = request
            var upload = upload
            var redirects = 0
            var exchange = exchange
            while true {
                let reply = try await self.exchange(try withCookies(withDefaultFields(sent)), upload: upload, exchange)
                exchange.waitedAtEntrance = nil
                exchange.letInAtEntrance = false
                storeCookies(of: reply.head, for: sent)
                guard let next = try followUp(to: sent, after: reply.head) else { return reply }
                reply.stream?.stop(with: .cancelled)
                redirects += 1
                guard redirects <= Self.maximumRedirects else {
                    throw .transport(
                        URLError(.httpTooManyRedirects, userInfo: [NSURLErrorFailingURLErrorKey: next.url as Any]))
                }
                // The body goes along only where the method is kept (307, 308).
                if (next.httpMethod ?? "GET") != (sent.httpMethod ?? "GET") { upload = nil }
                sent = next
            }
        }

        /// `request` with the stored cookies that match its URL, unless it has a `Cookie` field of its own.
        private func withCookies(_ request: URLRequest) throws(NALError) -> URLRequest {
            guard let cookieStorage, request.httpShouldHandleCookies, let url = request.url,
                request.value(forHTTPHeaderField: "Cookie") == nil
            else { return request }
            // Foundation's storage on Linux matches cookies by domain only: NAL checks Secure, path and expiry.
            let now = Date()
            let cookies = (cookieStorage.cookies(for: url) ?? []).filter { cookie in
                CookieAcceptance.isSendable(cookie) && (!cookie.isSecure || url.scheme?.lowercased() == "https")
                    && Self.pathMatches(url.path.isEmpty ? "/" : url.path, cookiePath: cookie.path)
                    && (cookie.expiresDate.map { $0 > now } ?? true)
            }
            guard !cookies.isEmpty else { return request }
            var request = request
            for (name, value) in HTTPCookie.requestHeaderFields(with: cookies) {
                request.setValue(value, forHTTPHeaderField: name)
            }
            // A stored cookie is checked like any header before it goes out.
            try OutgoingRequest.check(request)
            return request
        }

        /// RFC 6265 section 5.1.4: `/a/b` matches the cookie paths `/`, `/a`, `/a/` and `/a/b`, not `/ab`.
        static func pathMatches(_ path: String, cookiePath: String) -> Bool {
            guard !cookiePath.isEmpty, path.hasPrefix(cookiePath) else { return cookiePath.isEmpty }
            return path.count == cookiePath.count || cookiePath.hasSuffix("/")
                || path[path.index(path.startIndex, offsetBy: cookiePath.count)] == "/"
        }

        /// Keeps the cookies `response` sets, as URLSession does with its configuration's storage.
        private func storeCookies(of head: LazyHTTPResponse, for request: URLRequest) {
            guard let cookieStorage, request.httpShouldHandleCookies, let url = request.url else { return }
            // HTTPURLResponse has canonicalised the names (HTTP/2's "set-cookie" is "Set-Cookie" here).
            guard let fields = head.response.allHeaderFields as? [String: String] else { return }
            let parsed = HTTPCookie.cookies(withResponseHeaderFields: fields, for: url)
            guard !parsed.isEmpty else { return }
            let cookies = CookieAcceptance.storable(
                parsed, from: url, stored: cookieStorage.cookies(for: url)?.count ?? 0)
            guard !cookies.isEmpty else { return }
            cookieStorage.setCookies(cookies, for: url, mainDocumentURL: request.mainDocumentURL ?? url)
        }

        /// The next request of a redirect chain, checked as any request is, or `nil` to return `response`.
        private func followUp(to request: URLRequest, after head: LazyHTTPResponse) throws(NALError) -> URLRequest? {
            // Only a redirect's status needs Foundation's response made. Two Locations that disagree name no target:
            // the 3xx is the answer.
            guard RedirectPolicy.isFollowed(head.statusCode), !head.hasConflictingValues(forField: "Location"),
                let next = redirectPolicy.nextRequest(after: head.response, to: request)
            else { return nil }
            try OutgoingRequest.check(next)
            return next
        }

        /// One request and its response, without following redirects.
        private func exchange(
            _ request: URLRequest, upload: UploadBody?, _ exchange: Exchange
        ) async throws(NALError) -> CurlTransfer.Reply {
            guard let url = request.url else { throw .invalidRequest(.missingURL) }
            let idleTimeout = Duration.milliseconds(Int64((exchange.idleTimeout * 1000).rounded(.up)))
            // Past its origin's limit the call waits here, before it takes an easy handle (see `CurlAdmission`).
            let origin = CurlAdmission.Origin(url)
            try await loop.admit(
                to: origin, url: url, idleTimeout: idleTimeout, waited: exchange.waitedAtEntrance,
                fromEntrance: exchange.letInAtEntrance)
            let transfer: CurlTransfer
            do {
                transfer = try CurlTransfer(
                    request, handles: loop.handles, upload: upload, url: url, idleTimeout: idleTimeout,
                    limit: exchange.limit, streamsBody: exchange.streamsBody, routing: exchange.routing,
                    progress: exchange.progress, tls: checkedTLS, writeProbe: downloadWrites, slot: origin)
            } catch {
                loop.release(origin)
                throw error
            }
            let outcome = await withTaskCancellationHandler {
                loop.start(transfer)
                return await transfer.outcomeWhenFinished()
            } onCancel: {
                // The loop ends the call once the transfer is out of libcurl's hands, within a wake-up.
                loop.stop(transfer)
            }
            return try outcome.get()
        }

    }
#endif
