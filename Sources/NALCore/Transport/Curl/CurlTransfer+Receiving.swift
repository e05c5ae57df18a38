#if os(Linux)
    import CCurl
    import Foundation
    import FoundationNetworking
    import NALLogging
    import NALSupport

    extension CurlTransfer {
        func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
            activity.touch()
            if let writer {
                guard writer.isActive else { return 0 }
                // Before anything is decoded: libcurl hands the same bytes over again when the transfer resumes.
                if writer.isFull { return pause(for: writer) }
            }
            if let fileWrites, fileWrites.isFull { return pause(for: fileWrites) }
            guard let decoder else { return take(bytes) ? bytes.count : 0 }
            // After a pause in the middle of these bytes, libcurl hands all of them over again: what was decoded
            // before the pause is skipped.
            let skipped = min(decodedOfPausedChunk, bytes.count)
            decodedOfPausedChunk = 0
            let rest = UnsafeRawBufferPointer(rebasing: bytes[skipped...])
            let decoded: Int?
            do {
                decoded = try decoder.decode(rest, url: url) { piece in
                    guard take(piece) else { return .stop }
                    // A piece can fill the stream: the next waits for the consumer, coded, in libcurl's hands.
                    if let writer, writer.isFull { return .pause }
                    if let fileWrites, fileWrites.isFull { return .pause }
                    return .more
                }
            } catch {
                stoppedBecause = error
                return 0
            }
            guard let decoded else { return 0 }
            guard decoded < rest.count || decoder.hasPendingOutput else { return bytes.count }
            decodedOfPausedChunk = skipped + decoded
            if let writer { return pause(for: writer) }
            if let fileWrites { return pause(for: fileWrites) }
            return bytes.count
        }

        /// Hands on decoded body bytes: to the stream, the download's file, or memory; `false` stops the transfer
        /// (the reason, if any, is kept for the outcome).
        func take(_ bytes: UnsafeRawBufferPointer) -> Bool {
            if let writer { return writer.append(Data(bytes)) }
            if let routing {
                if route == nil, !decideRoute(routing) { return false }
                if case .file = route, let fileWrites {
                    // Written, and reported as progress, off the loop.
                    guard fileWrites.append(Data(bytes)) else {
                        stoppedBecause = fileWrites.failure ?? .cancelled
                        return false
                    }
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
            if body.isEmpty, let announcedLength {
                // Reserved once: grown by doubling, a 1 MiB body is copied several times and its pages touched
                // again, which was half of such a call's CPU. Only when bytes come: a HEAD's or a 304's length
                // reserves nothing.
                body.reserveCapacity(min(announcedLength, limit, Self.mostReservedBodyBytes))
                self.announcedLength = nil
            }
            body.append(contentsOf: bytes)
            progress?.received(bytes.count)
            return true
        }

        /// Asks `routing` where the body goes; `false` when it failed (the reason is kept for the outcome).
        func decideRoute(_ routing: any BodyRouting) -> Bool {
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

        func receiveHeader(_ line: UnsafeRawBufferPointer) -> Int {
            activity.touch()
            headBytes += line.count
            guard headBytes <= ResponseHeadLimit.maximumBytes else {
                stoppedBecause = ResponseHeadLimit.failure(url: url)
                return 0
            }
            let wasComplete = head.isComplete
            head.take(line)
            guard head.isComplete, !wasComplete else { return line.count }
            var lengths = ContentLengthCheck()
            // A chunked body's length is the chunks' (libcurl ignores a Content-Length beside Transfer-Encoding, RFC
            // 9112 §6.3): a length sent with it could reserve 8 MiB for a few bytes, kept as long as the body.
            var framedByLength = true
            for field in head.fields {
                if HTTPToken.equalsIgnoringASCIICase(field.name, "Content-Length") {
                    lengths.read(field.value)
                } else if HTTPToken.equalsIgnoringASCIICase(field.name, "Transfer-Encoding") {
                    framedByLength = false
                }
            }
            guard lengths.namesOneLength, !lengths.isPastLargestLength else {
                let values = head.fields.filter { HTTPToken.equalsIgnoringASCIICase($0.name, "Content-Length") }
                stoppedBecause = lengths.failure(shown: values.map(\.value).joined(separator: ", "), url: url)
                return 0
            }
            let codings = head.fields.filter { HTTPToken.equalsIgnoringASCIICase($0.name, "Content-Encoding") }
            do throws(NALError) {
                decoder = try ContentDecoding.make(
                    contentEncoding: codings.isEmpty ? nil : codings.map(\.value).joined(separator: ", "))
            } catch {
                stoppedBecause = error
                return 0
            }
            announcedLength = decoder == nil && !streamsBody && framedByLength ? lengths.length : nil
            if streamsBody, writer == nil { startStream() }
            return line.count
        }

        /// The final head once it is complete, made once for every use; `nil` before, or when Foundation cannot
        /// make a response of its URL and status.
        func finalHead() -> LazyHTTPResponse? {
            if let completedHead { return completedHead }
            guard head.isComplete else { return nil }
            completedHead = LazyHTTPResponse(head.responseHead(for: url))
            return completedHead
        }

        // MARK: Streamed bodies (event loop thread)

        /// Hands the caller the head and a body that fills as the transfer goes on.
        func startStream() {
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
        func pause(for writer: StreamedBody.Writer) -> Int {
            activity.pause()
            Task { [weak eventLoop, weak self] in
                await writer.awaitCapacity()
                guard let eventLoop, let self else { return }
                eventLoop.resume(self)
            }
            return Self.pauseWriting
        }

        /// Pauses the transfer while its download's writes are behind.
        func pause(for fileWrites: CurlFileWrites) -> Int {
            activity.pause()
            fileWrites.whenCaughtUp { [weak eventLoop, weak self] in
                guard let eventLoop, let self else { return }
                eventLoop.resume(self)
            }
            return Self.pauseWriting
        }

        /// `CURL_WRITEFUNC_PAUSE`.
        static let pauseWriting = 0x1000_0001

        /// Called by the event loop before it resumes the transfer.
        func resumeReceiving() {
            activity.resume()
        }

        func sendBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
            guard let uploadStream, let base = buffer.baseAddress else { return 0 }
            activity.touch()
            let count = uploadStream.read(base.assumingMemoryBound(to: UInt8.self), maxLength: buffer.count)
            guard count >= 0 else {
                stoppedBecause = uploadStream.failure ?? .transport(CurlCode.urlError(CurlCode.readError, url: url))
                return Self.abortRead
            }
            return count
        }

        /// Starts the streamed body again from its first byte; any other position is refused (`CURL_SEEKFUNC_CANTSEEK`).
        func rewindBody(to offset: Int64, origin: Int32) -> Int32 {
            guard offset == 0, origin == SEEK_SET, let old = uploadStream else { return 2 }
            old.close()
            guard let stream = try? UploadBodyStream(uploadSegments) else { return 1 }
            stream.open()
            uploadStream = stream
            return 0
        }

        /// `CURL_READFUNC_ABORT`: the read callback's way to stop the transfer.
        static let abortRead = 0x1000_0000

        func reportProgress(sent: Int64, received: Int64) -> Int32 {
            if activity.counts(sent: sent, received: received) { progress?.sent(sent, of: uploadLength) }
            return 0
        }
    }
#endif
