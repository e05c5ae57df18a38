#if os(Linux)
    import CCurl
    import Foundation
    import FoundationNetworking
    import NALLogging
    import NALSupport
    import Synchronization

    /// One request on libcurl's easy interface: its handle, what the callbacks collect, and how the call ends.
    ///
    /// Threading: the handle, `head`, `body` and `lastActivity` belong to the event loop's thread (libcurl calls the
    /// callbacks from `curl_multi_perform` on it); the outcome is behind a lock, because the caller's cancellation
    /// may end the call from any thread. The callbacks reach this object through an unretained pointer, which the
    /// event loop keeps valid by holding the transfer for as long as its handle is in the multi handle.
    final class CurlTransfer: @unchecked Sendable {
        typealias Outcome = TransferOutcome<Reply>.Outcome

        /// What a call gets: the head, and the whole body or (for a streamed call) the body as it arrives.
        struct Reply: Sendable {
            let head: LazyHTTPResponse
            let data: Data
            let stream: StreamedBody?
        }

        let url: URL
        /// The origin whose admission slot this transfer holds (see `CurlAdmission`), or `nil` for none; the event
        /// loop gives it back once the transfer has left its hands.
        let slot: CurlAdmission.Origin?
        /// This transfer among all of the process's, for what C code notes of it (see `configureTLS`).
        let token = UInt(CurlTransfer.tokens.add(1, ordering: .relaxed).newValue)
        static let tokens = Atomic<Int>(0)
        /// Whether a server's request for a client certificate is noted under `token` (https, no identity).
        var watchesCertificateRequests = false
        /// The transport's TLS configuration, checked; its failures are told apart by it.
        let tls: TLSConfiguration.Checked
        let idleTimeout: Duration
        let limit: Int
        private(set) var handle: UnsafeMutableRawPointer?
        let handles: CurlHandlePool
        var headerList: UnsafeMutableRawPointer?
        var head = CurlHead()
        /// The final head, once complete, as the call's response will hold it.
        var completedHead: LazyHTTPResponse?
        var body = Data()
        /// The final head's `Content-Length`, when it names one length, frames the body (no `Transfer-Encoding`)
        /// and the body is kept as sent (no content coding, not streamed): the body's memory is reserved from it
        /// when its first bytes arrive (`take`).
        var announcedLength: Int?
        /// When a byte last moved, and whether the stream's consumer holds the transfer back.
        var activity = TransferActivity()
        var lastActivity: ContinuousClock.Instant { activity.last }
        var isPaused: Bool { activity.isPaused }
        /// For a download: where the body goes (the file, or memory for a response that is not the file's), decided
        /// when the first body bytes arrive, and what writes the file (on this thread, which is the loop's own).
        let routing: (any BodyRouting)?
        var route: BodyRoute?
        /// For a download: its writes to the file, made off the event loop.
        let fileWrites: CurlFileWrites?
        let progress: ProgressReporter?
        let uploadLength: Int64?
        /// The progress reporter has been told how much to expect.
        var announcedBody = false
        /// Decodes the body's content coding, when it has one NAL offered; set when the final head is complete.
        var decoder: ContentDecoding?
        /// How many bytes of the chunk libcurl last handed over were decoded before the stream paused: libcurl hands
        /// the whole chunk over again when the transfer resumes.
        var decodedOfPausedChunk = 0
        /// For a streamed call: what the body is written to once the head has arrived.
        let streamsBody: Bool
        var writer: StreamedBody.Writer?
        /// The event loop that runs the transfer, set when it starts it; a streamed body asks it, from any thread, to
        /// resume or stop the transfer. Weak: a transfer must not keep its loop alive.
        weak var eventLoop: CurlEventLoop?
        /// Bytes of response heads so far, interim heads and trailers included.
        var headBytes = 0
        /// Why a callback stopped the transfer, reported instead of libcurl's generic write error.
        var stoppedBecause: NALError?
        /// The most body bytes reserved at once from a `Content-Length`: a length a server lies about reserves no
        /// more than this, and a longer body grows from it as any body does.
        static let mostReservedBodyBytes = 8 << 20
        /// The streamed request body, read by libcurl through the read callback.
        var uploadStream: UploadBodyStream?
        /// What the body is made of, to read it again from the start.
        var uploadSegments: [UploadBodyStream.Segment] = []
        /// Where libcurl writes the detail of a failure (CURL_ERROR_SIZE bytes); freed after the handle.
        let errorBuffer: UnsafeMutablePointer<CChar> = {
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: 256)
            buffer.initialize(repeating: 0, count: 256)
            return buffer
        }()
        /// How the call ends, once, whoever ends it first.
        let outcome = TransferOutcome<Reply>()
        /// Whether `finish` has been called: the first outcome is the call's.
        let decided = Atomic<Bool>(false)

        /// Sets up an easy handle from `handles` for `request`; throws when libcurl cannot make one or refuses an
        /// option.
        init(
            _ request: URLRequest, handles: CurlHandlePool, upload: UploadBody?, url: URL, idleTimeout: Duration,
            limit: Int,
            streamsBody: Bool = false, routing: (any BodyRouting)? = nil, progress: ProgressReporter? = nil,
            tls: TLSConfiguration.Checked = TLSConfiguration.Checked(minimumVersion: .tls12),
            writeProbe: CurlDownloadWriteProbe? = nil, slot: CurlAdmission.Origin? = nil
        ) throws(NALError) {
            self.url = url
            self.slot = slot
            self.tls = tls
            self.streamsBody = streamsBody
            self.routing = routing
            self.progress = progress
            fileWrites = routing.map { CurlFileWrites($0, progress: progress, probe: writeProbe) }
            uploadLength = upload?.length
            self.idleTimeout = idleTimeout
            self.limit = limit
            self.handles = handles
            guard let handle = handles.take() else {
                throw .transport(CurlCode.urlError(CurlCode.outOfMemory, url: url))
            }
            self.handle = handle
            do {
                try configure(handle, for: request, upload: upload)
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
        func detachHandle() {
            if let headerList { nal_curl_slist_free_all(headerList) }
            headerList = nil
            handle = nil
        }
    }
#endif
