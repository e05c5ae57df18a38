import Foundation

extension Client {
    /// Sends the request for `target` and returns as soon as its head has arrived and passed validation, with the
    /// body to read as it arrives.
    ///
    /// ```swift
    /// let stream = try await client.stream(.chat(prompt))
    /// for try await event in stream.serverSentEvents { print(event.data, terminator: "") }
    /// ```
    ///
    /// The call goes through hooks and middleware like any other; they see the head (see `TransportContext
    /// .streamsBody`). A status the endpoint's validation refuses throws `unacceptableStatusCode` with the start of
    /// the body (at most 64 KiB). The idle timeout applies between chunks; the total timeout, when the endpoint or
    /// `options` set one, covers the whole stream. Streamed calls are never shared by de-duplication.
    public func stream(
        _ target: Service, options: RequestOptions = RequestOptions()
    ) async throws(NALError) -> ResponseStream {
        try await stream(target, options: options, headers: [])
    }

    func stream(
        _ target: Service, options: RequestOptions, headers: [(name: String, value: String)]
    ) async throws(NALError) -> ResponseStream {
        let response = try await request(target, options: options, progress: nil, streamsBody: true, headers: headers)
        guard let body = response.streamedBody else {
            // A transport or middleware that gave the whole body: stream it from memory.
            return ResponseStream(response: response.replacingBody(with: Data()), body: .complete(response.data))
        }
        // The head the caller keeps does not hold the body: dropping the stream still cancels the transfer.
        return ResponseStream(response: response.replacingBody(with: Data()), body: body)
    }

    /// The server-sent events of `target`, reconnecting as a browser's `EventSource` does.
    ///
    /// ```swift
    /// for try await event in client.serverSentEvents(.events(room: "swift"), reconnect: .default) {
    ///     print(event.event, event.data)
    /// }
    /// ```
    ///
    /// When the connection drops or fails (a network error, an idle timeout, the server ending the body), it waits
    /// the server's `retry:` time, or the policy's delay, backing off while attempts deliver nothing, and reconnects
    /// with `Last-Event-ID`. An event cut off by a drop is discarded, never delivered in part. A 204 ends the
    /// sequence; another status that validation refuses, a status other than 200, or a `Content-Type` that is not
    /// `text/event-stream` throws without reconnecting, as does cancellation.
    ///
    /// `lastEventID` resumes where an earlier sequence stopped (an event's `lastEventID`, kept across a restart):
    /// the first connection already sends it.
    public func serverSentEvents(
        _ target: Service, reconnect policy: ReconnectionPolicy = .default, lastEventID: String = "",
        options: RequestOptions = RequestOptions()
    ) -> ServerSentEventSource<Service> {
        ServerSentEventSource(client: self, target: target, policy: policy, options: options, lastEventID: lastEventID)
    }
}
