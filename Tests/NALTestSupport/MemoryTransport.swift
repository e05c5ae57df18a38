package import Foundation
package import NALCore
import NALLogging

#if canImport(FoundationNetworking)
    package import FoundationNetworking
#endif

/// Answers every request from memory with a fixed status and body, and records what it was sent.
package final class MemoryTransport: Transport {
    package let status: Int
    package let body: Data
    package let delay: Duration?
    private let sent = Locked<[URLRequest]>([])

    package init(status: Int = 200, body: Data = Data(), delay: Duration? = nil) {
        self.status = status
        self.body = body
        self.delay = delay
    }

    package var requests: [URLRequest] { sent.withLock { $0 } }

    package func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
        sent.withLock { $0.append(request) }
        if let delay {
            do { try await Task.sleep(for: delay) } catch { throw .cancelled }
        }
        return try Self.response(to: request, status: status, body: body)
    }

    /// A JSON response to `request`, as a server would send it instantly.
    package static func response(
        to request: URLRequest, status: Int = 200, body: Data = Data()
    ) throws(NALError) -> Response {
        guard let url = request.url,
            let http = HTTPURLResponse(
                url: url, statusCode: status, httpVersion: "HTTP/1.1",
                headerFields: ["Content-Type": "application/json"])
        else { throw .transport(URLError(.badURL)) }
        return Response(
            request: request, httpResponse: http, data: body, timing: ResponseTiming(start: Date(), duration: .zero))
    }
}
