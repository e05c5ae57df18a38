#if os(Linux)
    import CCurl
    import Foundation
    import FoundationNetworking
    import NALLogging
    import NALSupport
    import Synchronization

    extension CurlTransfer {
        /// Ends the call from the event loop with libcurl's result code.
        func complete(code: Int32) {
            if let writer { return endStream(writer, code: code) }
            if let stoppedBecause { return finish(.failure(stoppedBecause)) }
            // A server that asked for a certificate, and answered all the same, needs no note of it kept.
            if code == CurlValue.ok, watchesCertificateRequests { _ = nal_curl_certificate_was_requested(token) }
            guard code == CurlValue.ok else {
                // libcurl 7.88 reports a header line over its 100 KiB as running out of memory, with no detail.
                if code == CurlCode.outOfMemory, !head.isComplete {
                    return finish(.failure(ResponseHeadLimit.failure(url: url)))
                }
                let detail = String(cString: errorBuffer)
                return finish(.failure(failure(code, detail: detail)))
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

        func endStream(_ writer: StreamedBody.Writer, code: Int32) {
            if code == CurlValue.ok {
                if let cutShort = decoder?.endFailure(url: url) { return writer.finish(throwing: cutShort) }
                return writer.finish()
            }
            let detail = String(cString: errorBuffer)
            writer.finish(throwing: stoppedBecause ?? failure(code, detail: detail))
        }

        /// The error for libcurl's `code`, told apart by TLS check where it can be.
        private func failure(_ code: Int32, detail: String) -> NALError {
            // Asked, then the connection failed before a byte of response: the server wanted a certificate.
            let asked = watchesCertificateRequests && nal_curl_certificate_was_requested(token) != 0 && headBytes == 0
            return CurlCode.failure(code, url: url, detail: detail, tls: tls, certificateRequested: asked)
        }

        /// Ends a streamed body that the event loop gave up on (idle, or the transport going away).
        func failStream(_ error: NALError) {
            writer?.finish(throwing: error)
        }

        /// Ends the call with `outcome`, once: later calls do nothing. A download ends once its writes are done, so
        /// that nothing writes its file after the caller has heard of the end (the next call may resume that file at
        /// once); a cancelled one drops the writes still waiting, and one whose write failed ends with that failure.
        func finish(_ outcome: Outcome) {
            // The first outcome wins here and now, even when a download's writes delay telling the caller: a stop
            // that comes after a success drops no write, and a cancelled transfer is never started.
            guard decided.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
            else { return }
            guard let fileWrites else { return self.outcome.finish(outcome) }
            if case .failure(.cancelled) = outcome { fileWrites.dropWaitingWrites() }
            fileWrites.afterWrites { [self] in
                if case .success = outcome, let failure = fileWrites.failure {
                    return self.outcome.finish(.failure(failure))
                }
                self.outcome.finish(outcome)
            }
        }

        /// Whether the call's outcome is decided (a download's caller may hear of it once its writes are done).
        var isFinished: Bool { decided.load(ordering: .acquiring) }

        /// Waits for the outcome.
        func outcomeWhenFinished() async -> Outcome {
            await outcome.value()
        }
    }
#endif
