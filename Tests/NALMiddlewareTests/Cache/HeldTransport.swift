import Foundation
import NALCore
import NALLogging
import NALTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends through `origin`, holding the request of index `held` (counted from 0) until `release` opens; `arrived`
/// opens when that request gets here. For races: what another call does while one is on the wire.
final class HeldTransport: Transport {
    let origin: any Transport
    let held: Int
    let arrived = Gate()
    let release = Gate()
    private let count = Locked(0)

    init(_ origin: any Transport, holding held: Int) {
        self.origin = origin
        self.held = held
    }

    func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
        let index = count.withLock { count in
            defer { count += 1 }
            return count
        }
        if index == held {
            arrived.open()
            await release.wait()
        }
        return try await origin.send(request, context: context)
    }
}
