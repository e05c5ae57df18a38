#if os(Linux)
    import CCurl
    import Foundation
    import FoundationNetworking
    import NALLogging
    import NALSupport

    /// One request on libcurl's easy interface: its handle, what the callbacks collect, and how the call ends.
    ///
    /// Threading: the handle, `head`, `body` and `lastActivity` belong to the event loop's thread (libcurl calls the
    /// callbacks from `curl_multi_perform` on it); the outcome is behind a lock, because the caller's cancellation
    /// may end the call from any thread. The callbacks reach this object through an unretained pointer, which the
    /// event loop keeps valid by holding the transfer for as long as its handle is in the multi handle.
    final class CurlTransfer: @unchecked Sendable {
        typealias Outcome = Result<Reply, NALError>

        /// What a call gets: the head, and the whole body or (for a streamed call) the body as it arrives.
        struct Reply: Sendable {
            let head: LazyHTTPResponse
            let data: Data
            let stream: StreamedBody?
        }

        let url: URL
        let idleTimeout: Duration
        let limit: Int
        private(set) var handle: UnsafeMutableRawPointer?
        private let handles: CurlHandlePool
        private var headerList: UnsafeMutableRawPointer?
        private var head = CurlHead()
        /// The final head, once complete, as the call's response will hold it.
        private var completedHead: LazyHTTPResponse?
        private var body = Data()
        private(set) var lastActivity = ContinuousClock.now
        /// For a download: where the body goes (the file, or memory for a response that is not the file's), decided
        /// when the first body bytes arrive, and what writes the file (on this thread, which is the loop's own).
        private let routing: (any BodyRouting)?
        private var route: BodyRoute?
        private let progress: ProgressReporter?
        private let uploadLength: Int64?
        /// The progress reporter has been told how much to expect.
        private var announcedBody = false
        /// Decodes the body's content coding, when it has one NAL offered; set when the final head is complete.
        private var decoder: ContentDecoder?
        /// For a streamed call: what the body is written to once the head has arrived.
        private let streamsBody: Bool
        private var writer: StreamedBody.Writer?
        /// The consumer is behind: libcurl holds the bytes until `resumeReceiving()`; idle time does not count.
        private(set) var isPaused = false
        /// The event loop that runs the transfer, set when it starts it; a streamed body asks it, from any thread, to
        /// resume or stop the transfer. Weak: a transfer must not keep its loop alive.
        weak var eventLoop: CurlEventLoop?
        /// The byte counts libcurl last reported, to tell activity from a quiet transfer.
        private var counted: (sent: Int64, received: Int64) = (0, 0)
        /// Bytes of response heads so far, interim heads and trailers included.
        private var headBytes = 0
        /// Why a callback stopped the transfer, reported instead of libcurl's generic write error.
        private var stoppedBecause: NALError?
        /// The streamed request body, read by libcurl through the read callback.
        private var uploadStream: UploadBodyStream?
        /// What the body is made of, to read it again from the start.
        private var uploadSegments: [UploadBodyStream.Segment] = []
        /// Where libcurl writes the detail of a failure (CURL_ERROR_SIZE bytes); freed after the handle.
        private let errorBuffer: UnsafeMutablePointer<CChar> = {
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: 256)
            buffer.initialize(repeating: 0, count: 256)
            return buffer
        }()
        private let outcome = Locked<Completion>(.waiting(nil))

        private enum Completion: Sendable {
            case waiting(CheckedContinuation<Outcome, Never>?)
            case finished(Outcome?)
        }

        /// Sets up an easy handle from `handles` for `request`; throws when libcurl cannot make one or refuses an
        /// option.
        init(
            _ request: URLRequest, handles: CurlHandlePool, upload: UploadBody?, url: URL, idleTimeout: Duration,
            limit: Int,
            streamsBody: Bool = false, routing: (any BodyRouting)? = nil, progress: ProgressReporter? = nil,
            certificateAuthorities: String? = nil
        ) throws(NALError) {
            self.url = url
            self.streamsBody = streamsBody
            self.routing = routing
            self.progress = progress
            uploadLength = upload?.length
            self.idleTimeout = idleTimeout
            self.limit = limit
            self.handles = handles
            guard let handle = handles.take() else {
                throw .transport(CurlCode.urlError(CurlCode.outOfMemory, url: url))
            }
            self.handle = handle
            do {
                try configure(handle, for: request, upload: upload, certificateAuthorities: certificateAuthorities)
            } catch {
                release()
                throw error
            }
        }

        deinit {
            release()
            errorBuffer.deallocate()
        }

        /// Frees the handle and the header list; called by the event loop once the handle left the multi handle, or
        /// when the transfer goes.
        func release() {
            if let handle { handles.free(handle) }
            detachHandle()
        }

        /// Gives the handle back to be reused, once it left the multi handle after the transfer ended well, and
        /// frees the header list.
        func recycleHandle() {
            // Reset before the header list is freed: until then the handle's options point at it.
            if let handle { handles.recycle(handle) }
            detachHandle()
        }

        /// Frees the header list and forgets the handle, which is freed or back in the pool by now.
        private func detachHandle() {
            if let headerList { nal_curl_slist_free_all(headerList) }
            headerList = nil
            handle = nil
        }

        // MARK: Setting up

        private func configure(
            _ handle: UnsafeMutableRawPointer, for request: URLRequest, upload: UploadBody?,
            certificateAuthorities: String?
        ) throws(NALError) {
            let context = Unmanaged.passUnretained(self).toOpaque()
            try set(.url, url.absoluteString)
            try set(.noSignal, 1)
            // A child process the program starts must not inherit, and so hold open, a connection NAL closed.
            try check(nal_curl_easy_open_sockets_closed_on_exec(handle))
            try check(nal_curl_easy_setopt_pointer(handle, CurlOption.errorBuffer.rawValue, errorBuffer))
            // NAL follows redirects itself, with its credential rules; libcurl only speaks HTTP here.
            try set(.followLocation, 0)
            try set(.protocols, CurlValue.httpAndHTTPS)
            // A proxy tunnel's "200 Connection established" is not the response.
            try set(.suppressConnectHeaders, 1)
            try set(.verifyPeer, 1)
            try set(.verifyHost, 2)
            if let certificateAuthorities { try set(.certificateAuthorityFile, certificateAuthorities) }
            try set(.tcpKeepAlive, 1)
            // A burst of calls to an HTTP/2 host waits to share the first connection instead of opening more. Only
            // over https, the one place HTTP/2 is offered (ALPN): on plain http, libcurl 7.88 holds a call to a host
            // with no open connection yet until the first call's response head has arrived.
            if url.scheme?.lowercased() == "https" { try set(.pipeWait, 1) }
            try set(.httpVersion, nal_curl_supports_http2() != 0 ? CurlValue.http2OverTLS : CurlValue.http11)
            // NAL decodes what it offers itself (`ContentDecoder`), so that a coding cut short is an error; libcurl
            // passes the coded bytes on. The limit counts decoded bytes.
            try set(.acceptEncoding, ContentDecoder.offered)
            try set(.httpContentDecoding, 0)
            try check(nal_curl_easy_setopt_data_callback(handle, CurlOption.writeFunction.rawValue, curlReceiveBody))
            try check(nal_curl_easy_setopt_pointer(handle, CurlOption.writeData.rawValue, context))
            try check(nal_curl_easy_setopt_data_callback(handle, CurlOption.headerFunction.rawValue, curlReceiveHeader))
            try check(nal_curl_easy_setopt_pointer(handle, CurlOption.headerData.rawValue, context))
            try set(.noProgress, 0)
            try check(
                nal_curl_easy_setopt_progress_callback(
                    handle, CurlOption.transferInfoFunction.rawValue, curlReportProgress))
            try check(nal_curl_easy_setopt_pointer(handle, CurlOption.transferInfoData.rawValue, context))
            var request = request
            switch upload {
            case .data(let data)?:
                request.httpBody = data
            case .segments(let segments, let length)?:
                try configureStreamedBody(segments, length: length, method: request.httpMethod ?? "POST")
                if request.value(forHTTPHeaderField: "Content-Type") == nil {
                    request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
                }
                return try configureHeaders(of: request)
            case nil:
                break
            }
            try configureMethod(of: request)
            try configureHeaders(of: request)
        }

        /// A body read from its segments (files and bytes) as libcurl sends it, on the event loop's thread.
        private func configureStreamedBody(
            _ segments: [UploadBodyStream.Segment], length: Int64, method: String
        ) throws(NALError) {
            let stream = try UploadBodyStream(segments)
            stream.open()
            uploadStream = stream
            uploadSegments = segments
            // libcurl sends the body again when a reused connection turns out closed; it rewinds it through this.
            try check(nal_curl_easy_setopt_seek_callback(handle, CurlOption.seekFunction.rawValue, curlRewindBody))
            try check(
                nal_curl_easy_setopt_pointer(
                    handle, CurlOption.seekData.rawValue, Unmanaged.passUnretained(self).toOpaque()))
            try set(.post, 1)
            try set(.postFieldSizeLarge, length)
            try check(nal_curl_easy_setopt_read_callback(handle, CurlOption.readFunction.rawValue, curlSendBody))
            try check(
                nal_curl_easy_setopt_pointer(
                    handle, CurlOption.readData.rawValue, Unmanaged.passUnretained(self).toOpaque()))
            if method != "POST" { try set(.customRequest, method) }
        }

        private func configureMethod(of request: URLRequest) throws(NALError) {
            let method = request.httpMethod ?? "GET"
            let body = request.httpBody
            switch (method, body) {
            case ("GET", nil): try set(.httpGet, 1)
            case ("HEAD", _): try set(.noBody, 1)
            case (_, let body?):
                // libcurl copies the body, so that nothing of ours has to outlive the call.
                try set(.postFieldSizeLarge, Int64(body.count))
                let code = body.withUnsafeBytes { bytes in
                    // An empty body still needs a pointer, or libcurl would read the body from a callback; a
                    // static empty string lives as long as the process.
                    let start = bytes.baseAddress ?? UnsafeRawPointer(Self.emptyBody.utf8Start)
                    return nal_curl_easy_setopt_pointer(handle, CurlOption.copyPostFields.rawValue, start)
                }
                try check(code)
                if method != "POST" { try set(.customRequest, method) }
            case ("POST", nil), ("PUT", nil), ("PATCH", nil):
                // Methods whose body means something say it is empty (RFC 9110 8.6), as URLSession does: some servers
                // answer 411 otherwise.
                var request = request
                request.httpBody = Data()
                try configureMethod(of: request)
            case (_, nil):
                try set(.customRequest, method)
            }
        }

        private static let emptyBody: StaticString = ""

        private func configureHeaders(of request: URLRequest) throws(NALError) {
            var lines: [String] = []
            let fields = request.allHTTPHeaderFields ?? [:]
            for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
                // libcurl sends "Name;" as a field with an empty value; "Name:" would remove it.
                lines.append(value.isEmpty ? "\(name);" : "\(name): \(value)")
            }
            let has = Set(fields.keys.map { $0.lowercased() })
            // What libcurl would add on its own: no Expect: 100-continue round trip, which URLSession does not make
            // either, and no form Content-Type for a body whose type the caller did not give (FoundationNetworking
            // adds one; the porting table in Transports.md says so).
            if !has.contains("expect") { lines.append("Expect:") }
            if !has.contains("content-type") { lines.append("Content-Type:") }
            for line in lines {
                guard let appended = nal_curl_slist_append(headerList, line) else {
                    throw .transport(CurlCode.urlError(CurlCode.outOfMemory, url: url))
                }
                headerList = appended
            }
            try check(nal_curl_easy_setopt_pointer(handle, CurlOption.httpHeader.rawValue, headerList))
        }

        private func set(_ option: CurlOption, _ value: Int) throws(NALError) {
            try check(nal_curl_easy_setopt_long(handle, option.rawValue, value))
        }

        private func set(_ option: CurlOption, _ value: Int64) throws(NALError) {
            try check(nal_curl_easy_setopt_offset(handle, option.rawValue, value))
        }

        private func set(_ option: CurlOption, _ value: String) throws(NALError) {
            // libcurl copies string options when they are set.
            let code = value.withCString { nal_curl_easy_setopt_pointer(handle, option.rawValue, $0) }
            try check(code)
        }

        private func check(_ code: Int32) throws(NALError) {
            guard code != CurlValue.ok else { return }
            throw .transport(CurlCode.urlError(code, url: url))
        }

        // MARK: Callbacks (event loop thread)

        fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
            lastActivity = .now
            if let writer {
                guard writer.isActive else { return 0 }
                // Before anything is decoded: libcurl hands the same bytes over again when the transfer resumes.
                if writer.isFull { return pause(for: writer) }
            }
            guard let decoder else { return take(bytes) ? bytes.count : 0 }
            do {
                guard try decoder.decode(bytes, url: url, into: take) else { return 0 }
            } catch {
                stoppedBecause = error
                return 0
            }
            return bytes.count
        }

        /// Hands on decoded body bytes: to the stream, the download's file, or memory; `false` stops the transfer
        /// (the reason, if any, is kept for the outcome).
        private func take(_ bytes: UnsafeRawBufferPointer) -> Bool {
            if let writer { return writer.append(Data(bytes)) }
            if let routing {
                if route == nil, !decideRoute(routing) { return false }
                if case .file = route {
                    do {
                        try routing.write(Data(bytes))
                    } catch {
                        stoppedBecause = error
                        return false
                    }
                    progress?.received(bytes.count)
                    return true
                }
            }
            guard body.count + bytes.count <= limit else {
                stoppedBecause = .responseTooLarge(limit: limit, url: url)
                return false
            }
            if !announcedBody, let progress {
                announcedBody = true
                // From the head, as HTTPURLResponse.expectedContentLength reads it, without making that object.
                let announced = finalHead()?.value(forField: "Content-Length").flatMap { Int64($0) }
                progress.expectReceiving(announced.flatMap { $0 >= 0 ? $0 : nil }, alreadyReceived: 0)
            }
            body.append(contentsOf: bytes)
            progress?.received(bytes.count)
            return true
        }

        /// Asks `routing` where the body goes; `false` when it failed (the reason is kept for the outcome).
        private func decideRoute(_ routing: any BodyRouting) -> Bool {
            guard let response = finalHead()?.response else { return true }
            do {
                let route = try routing.route(for: response)
                self.route = route
                if case .file(let alreadyReceived, let total) = route {
                    announcedBody = true
                    progress?.expectReceiving(total, alreadyReceived: alreadyReceived)
                }
                return true
            } catch {
                stoppedBecause = error
                return false
            }
        }

        fileprivate func receiveHeader(_ line: UnsafeRawBufferPointer) -> Int {
            lastActivity = .now
            headBytes += line.count
            guard headBytes <= ResponseHeadLimit.maximumBytes else {
                stoppedBecause = ResponseHeadLimit.failure(url: url)
                return 0
            }
            let wasComplete = head.isComplete
            head.take(line)
            guard head.isComplete, !wasComplete else { return line.count }
            var lengths = ContentLengthCheck()
            for field in head.fields where HTTPToken.equalsIgnoringASCIICase(field.name, "Content-Length") {
                lengths.read(field.value)
            }
            guard lengths.namesOneLength else {
                let values = head.fields.filter { HTTPToken.equalsIgnoringASCIICase($0.name, "Content-Length") }
                stoppedBecause = ContentLengthCheck.failure(
                    shown: values.map(\.value).joined(separator: ", "), url: url)
                return 0
            }
            let codings = head.fields.filter { HTTPToken.equalsIgnoringASCIICase($0.name, "Content-Encoding") }
            do throws(NALError) {
                decoder = try ContentDecoder.make(
                    contentEncoding: codings.isEmpty ? nil : codings.map(\.value).joined(separator: ", "))
            } catch {
                stoppedBecause = error
                return 0
            }
            if streamsBody, writer == nil { startStream() }
            return line.count
        }

        /// The final head once it is complete, made once for every use; `nil` before, or when Foundation cannot
        /// make a response of its URL and status.
        private func finalHead() -> LazyHTTPResponse? {
            if let completedHead { return completedHead }
            guard head.isComplete else { return nil }
            completedHead = LazyHTTPResponse(head.responseHead(for: url))
            return completedHead
        }

        // MARK: Streamed bodies (event loop thread)

        /// Hands the caller the head and a body that fills as the transfer goes on.
        private func startStream() {
            guard let response = finalHead() else { return }
            let (body, writer) = StreamedBody.makeStream()
            self.writer = writer
            // Weak: the stream's consumer must not keep the transfer, or the loop, alive.
            writer.onCancel { [weak eventLoop, weak self] in
                guard let eventLoop, let self else { return }
                eventLoop.stop(self)
            }
            finish(.success(Reply(head: response, data: Data(), stream: body)))
        }

        /// Pauses the transfer while the stream's consumer is behind: libcurl keeps the bytes and hands them over
        /// again when it resumes.
        private func pause(for writer: StreamedBody.Writer) -> Int {
            isPaused = true
            Task { [weak eventLoop, weak self] in
                await writer.awaitCapacity()
                guard let eventLoop, let self else { return }
                eventLoop.resume(self)
            }
            return Self.pauseWriting
        }

        /// `CURL_WRITEFUNC_PAUSE`.
        private static let pauseWriting = 0x1000_0001

        /// Called by the event loop before it resumes the transfer.
        func resumeReceiving() {
            isPaused = false
            lastActivity = .now
        }

        fileprivate func sendBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
            guard let uploadStream, let base = buffer.baseAddress else { return 0 }
            lastActivity = .now
            let count = uploadStream.read(base.assumingMemoryBound(to: UInt8.self), maxLength: buffer.count)
            guard count >= 0 else {
                stoppedBecause = uploadStream.failure ?? .transport(CurlCode.urlError(CurlCode.readError, url: url))
                return Self.abortRead
            }
            return count
        }

        /// Starts the streamed body again from its first byte; any other position is refused (`CURL_SEEKFUNC_CANTSEEK`).
        fileprivate func rewindBody(to offset: Int64, origin: Int32) -> Int32 {
            guard offset == 0, origin == SEEK_SET, let old = uploadStream else { return 2 }
            old.close()
            guard let stream = try? UploadBodyStream(uploadSegments) else { return 1 }
            stream.open()
            uploadStream = stream
            return 0
        }

        /// `CURL_READFUNC_ABORT`: the read callback's way to stop the transfer.
        private static let abortRead = 0x1000_0000

        fileprivate func reportProgress(sent: Int64, received: Int64) -> Int32 {
            if sent != counted.sent || received != counted.received {
                if sent != counted.sent { progress?.sent(sent, of: uploadLength) }
                counted = (sent, received)
                lastActivity = .now
            }
            return 0
        }

        // MARK: Ending

        /// Ends the call from the event loop with libcurl's result code.
        func complete(code: Int32) {
            if let writer { return endStream(writer, code: code) }
            if let stoppedBecause { return finish(.failure(stoppedBecause)) }
            guard code == CurlValue.ok else {
                // libcurl 7.88 reports a header line over its 100 KiB as running out of memory, with no detail.
                if code == CurlCode.outOfMemory, !head.isComplete {
                    return finish(.failure(ResponseHeadLimit.failure(url: url)))
                }
                let detail = String(cString: errorBuffer)
                return finish(.failure(.transport(CurlCode.urlError(code, url: url, detail: detail))))
            }
            guard let response = finalHead() else {
                return finish(.failure(.transport(CurlCode.urlError(CurlCode.weirdServerReply, url: url))))
            }
            if let cutShort = decoder?.endFailure(url: url) { return finish(.failure(cutShort)) }
            // An empty body still decides where it went: an empty download is an empty file.
            if let routing, route == nil, !decideRoute(routing), let stoppedBecause {
                return finish(.failure(stoppedBecause))
            }
            finish(.success(Reply(head: response, data: body, stream: nil)))
        }

        private func endStream(_ writer: StreamedBody.Writer, code: Int32) {
            if code == CurlValue.ok {
                if let cutShort = decoder?.endFailure(url: url) { return writer.finish(throwing: cutShort) }
                return writer.finish()
            }
            let detail = String(cString: errorBuffer)
            writer.finish(throwing: stoppedBecause ?? .transport(CurlCode.urlError(code, url: url, detail: detail)))
        }

        /// Ends a streamed body that the event loop gave up on (idle, or the transport going away).
        func failStream(_ error: NALError) {
            writer?.finish(throwing: error)
        }

        /// Ends the call with `outcome`, once: later calls do nothing.
        func finish(_ outcome: Outcome) {
            let waiting = self.outcome.withLock { state -> CheckedContinuation<Outcome, Never>? in
                guard case .waiting(let continuation) = state else { return nil }
                state = .finished(continuation == nil ? outcome : nil)
                return continuation
            }
            waiting?.resume(returning: outcome)
        }

        /// Whether the call has ended.
        var isFinished: Bool {
            outcome.withLock { state in
                if case .finished = state { return true }
                return false
            }
        }

        /// Waits for the outcome.
        func outcomeWhenFinished() async -> Outcome {
            await withCheckedContinuation { continuation in
                let ready = outcome.withLock { state -> Outcome? in
                    switch state {
                    case .waiting:
                        state = .waiting(continuation)
                        return nil
                    case .finished(let outcome):
                        state = .finished(nil)
                        return outcome ?? .failure(.cancelled)
                    }
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }

    // The C callbacks: `context` is the transfer, kept alive by the event loop while libcurl may call them.

    private let curlReceiveBody: nal_curl_data_callback = { bytes, size, count, context in
        guard let context else { return 0 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        return transfer.receiveBody(UnsafeRawBufferPointer(start: bytes, count: size &* count))
    }

    private let curlReceiveHeader: nal_curl_data_callback = { bytes, size, count, context in
        guard let context else { return 0 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        return transfer.receiveHeader(UnsafeRawBufferPointer(start: bytes, count: size &* count))
    }

    private let curlSendBody: nal_curl_read_callback = { buffer, size, count, context in
        guard let context else { return 0x1000_0000 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        return transfer.sendBody(into: UnsafeMutableRawBufferPointer(start: buffer, count: size &* count))
    }

    private let curlRewindBody: nal_curl_seek_callback = { context, offset, origin in
        guard let context else { return 1 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        return transfer.rewindBody(to: offset, origin: origin)
    }

    private let curlReportProgress: nal_curl_progress_callback = { context, _, received, _, sent in
        guard let context else { return 1 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        return transfer.reportProgress(sent: sent, received: received)
    }
#endif
