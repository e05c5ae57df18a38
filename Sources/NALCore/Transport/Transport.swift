#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// Sends a prepared request and returns the whole response. `URLSessionTransport` talks to the network; middleware
/// wraps a transport; stubbing provides transports that answer from memory.
///
/// A transport returns every response it receives, whatever its status code: validation is the Client's job.
public protocol Transport: Sendable {
    /// Sends `request` and returns its response. `context` says which endpoint it came from and how to send it.
    func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response
}
