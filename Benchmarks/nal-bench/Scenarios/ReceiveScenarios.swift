import Foundation
import NALCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A 256 KiB body with a `Content-Length`, served on loopback by `LoopbackResponder`, and a client over the
/// platform's default transport (CurlTransport on Linux).
final class ReceiveBench: Sendable {
    static let bodyBytes = 256 << 10
    let resource: CachedResource
    let client: Client<CachedResource>
    private let responder: LoopbackResponder

    private init() throws {
        let head =
            "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
            + "Content-Length: \(Self.bodyBytes)\r\n\r\n"
        responder = try LoopbackResponder(answer: Array(head.utf8) + (0..<Self.bodyBytes).map { UInt8($0 % 251) })
        guard let base = URL(string: "http://127.0.0.1:\(responder.port)") else { throw URLError(.badURL) }
        resource = CachedResource(baseURL: base)
        #if os(Linux)
            client = Client(transport: try CurlTransport())
        #else
            client = Client(transport: URLSessionTransport())
        #endif
    }

    /// Made once, its connection open.
    static let shared = Task { () throws -> ReceiveBench in
        let bench = try ReceiveBench()
        _ = try await bench.client.request(bench.resource)
        return bench
    }
}

extension Benchmark {
    static let receiveScenarios: [Benchmark] = [
        Benchmark(
            "receive.large",
            measures:
                "A GET of a 256 KiB body with a Content-Length from loopback: its memory is reserved once, not grown by doubling."
        ) { n in
            let bench = try await ReceiveBench.shared.value
            for _ in 0..<n { blackHole(try await bench.client.request(bench.resource)) }
        }
    ]
}
