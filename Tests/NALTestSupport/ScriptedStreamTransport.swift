package import Foundation
package import NALCore
import NALLogging

#if canImport(FoundationNetworking)
    package import FoundationNetworking
#endif

/// Streams a fixed list of chunks, `interval` apart, as a server would; records when each chunk was handed over
/// and whether the consumer stopped the body.
package final class ScriptedStreamTransport: Transport {
    package let status: Int
    package let headers: [String: String]
    package let chunks: [Data]
    package let interval: Duration
    package let failure: NALError?
    private let state = Locked<(sentAt: [ContinuousClock.Instant], cancelled: Bool, calls: Int)>(([], false, 0))

    package init(
        status: Int = 200, headers: [String: String] = ["Content-Type": "text/event-stream"], chunks: [Data],
        interval: Duration = .zero, failure: NALError? = nil
    ) {
        self.status = status
        self.headers = headers
        self.chunks = chunks
        self.interval = interval
        self.failure = failure
    }

    /// When each chunk was appended to the body.
    package var sentAt: [ContinuousClock.Instant] { state.withLock { $0.sentAt } }
    /// Whether the consumer's side stopped a body (its `onCancel` ran).
    package var cancelled: Bool { state.withLock { $0.cancelled } }
    /// How many calls were sent.
    package var calls: Int { state.withLock { $0.calls } }

    package func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
        state.withLock { $0.calls += 1 }
        guard let url = request.url,
            let http = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)
        else { throw .transport(URLError(.badURL)) }
        guard context.streamsBody else {
            return Response(
                request: request, httpResponse: http, data: chunks.reduce(into: Data()) { $0.append($1) },
                timing: ResponseTiming(start: Date(), duration: .zero))
        }
        let (body, writer) = StreamedBody.makeStream(highWater: 1024)
        let chunks = chunks
        let interval = interval
        let failure = failure
        let state = state
        let player = Task {
            for (index, chunk) in chunks.enumerated() {
                if index > 0, interval > .zero { try? await Task.sleep(for: interval) }
                if Task.isCancelled { return }
                state.withLock { $0.sentAt.append(.now) }
                guard writer.append(chunk) else { return }
                await writer.awaitCapacity()
            }
            if let failure { writer.finish(throwing: failure) } else { writer.finish() }
        }
        writer.onCancel {
            state.withLock { $0.cancelled = true }
            player.cancel()
        }
        return Response(
            request: request, httpResponse: http, data: Data(), timing: ResponseTiming(start: Date(), duration: .zero),
            streamedBody: body)
    }
}
