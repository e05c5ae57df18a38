public import NALCore

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// A transport that runs requests through middleware before a transport: the first middleware is outermost, so it
/// sees the request first and the response last (`a>`, `b>`, `c>`, `c<`, `b<`, `a<`).
///
/// It is itself a `Transport`, so a `Client` needs nothing else: `Client(transport: MiddlewareChain([...], transport:
/// URLSessionTransport()))`, or the convenience `Client(middleware: [...])`. A pass-through middleware costs one async
/// call and no allocation.
public struct MiddlewareChain: Transport {
    /// The middleware, outermost first.
    public let middleware: [any Middleware]
    /// Where requests go after the last middleware.
    public let transport: any Transport

    /// Creates a chain.
    public init(_ middleware: [any Middleware], transport: any Transport) {
        self.middleware = middleware
        self.transport = transport
    }

    /// Sends `request` through every middleware and then the transport.
    public func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
        do {
            return try await run(0, request, context)
        } catch let error as NALError {
            throw error
        } catch {
            // `run` turns every error into an NALError; this keeps the signature honest.
            throw .middlewareFailed(middleware: "MiddlewareChain", underlying: error)
        }
    }

    /// Runs the middleware at `index`, whose `next` runs the rest. Recursion by index needs no closure context on
    /// the heap: `next` does not escape.
    private func run(_ index: Int, _ request: URLRequest, _ context: TransportContext) async throws -> Response {
        guard index < middleware.count else { return try await transport.send(request, context: context) }
        let current = middleware[index]
        do {
            return try await current.intercept(request, context: context) { request, context in
                try await run(index + 1, request, context)
            }
        } catch let error as NALError {
            throw error
        } catch is CancellationError {
            throw NALError.cancelled
        } catch {
            throw NALError.middlewareFailed(middleware: String(describing: type(of: current)), underlying: error)
        }
    }
}
