#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

extension URLSessionTransport {
    /// Sends `sent`, follows redirects, and returns at the final head with its body still arriving.
    ///
    /// Each stream gets a session of its own, whose configuration has no resource timeout; it is invalidated when
    /// the body ends. FoundationNetworking cannot pause a transfer, and holding back its callbacks would hold back
    /// every session of the process, since they share one work queue (Linux fact 26): what a slow consumer has not
    /// taken past 1 MiB waits in an unnamed temporary file instead (`StreamedBody.makeStream(spillsToDisk:)`).
    func stream(
        _ sent: URLRequest, as request: URLRequest, upload: UploadBody?, idleTimeout: TimeInterval,
        started: (date: Date, instant: ContinuousClock.Instant)
    ) async throws(NALError) -> Response {
        let queue = SerialDelegateQueue(highWater: Self.streamCallbackBound)
        let delegate = SessionDelegate(delegateQueue: queue)
        let session = URLSession(configuration: streamConfiguration, delegate: delegate, delegateQueue: queue)
        var sent = sent
        sent.timeoutInterval = Self.backstop(for: RequestOptions.maximumTimeout)
        do {
            let (head, body) = try await followingRedirects(sent, upload: upload) {
                request, upload throws(NALError) -> (HTTPURLResponse, StreamedBody) in
                let (body, writer) = StreamedBody.makeStream(spillsToDisk: true)
                let (head, _) = try await delegate.exchange(
                    request, in: session, limit: .max, idleTimeout: idleTimeout, upload: upload, stream: writer)
                return (head, body)
            } discarding: { body in
                body.stop(with: .cancelled)
            }
            body.whenEnded { _ in session.finishTasksAndInvalidate() }
            return Response(
                request: request, httpResponse: head, data: Data(),
                timing: ResponseTiming(start: started.date, duration: .now - started.instant), streamedBody: body)
        } catch {
            // The task is already cancelled through the delegate queue (Linux fact 25); `invalidateAndCancel()`
            // would cancel it again off that queue, and wait on the work queue from a task's thread.
            session.finishTasksAndInvalidate()
            throw error
        }
    }
}

extension URLSessionTransport {
    /// Callbacks a stream's delegate queue lets wait before it holds the socket reader back: while the spill file
    /// is slower than the network (the kernel throttles a writer with many dirty pages), what waits is memory.
    /// Holding back stalls every session of the process (they share one work queue), so streams hold back no
    /// sooner than other calls: a 1 GiB stream to a 200 MB/s consumer then peaks 17-30 MiB above its start, with
    /// the spill file's mapped reads and heap trimming (35-48 MiB without them).
    static let streamCallbackBound = SerialDelegateQueue.highWater
}
