public import NALCore

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// Middleware written as four hooks, in the order Mockingbird's `MiddlewareType` and Moya's `PluginType` call them:
/// `prepare` (Moya `prepare`), `willSend`, `didReceive`, `process`. Each has a default that does nothing, so a
/// ported plugin implements only what it used.
///
/// `didReceive` runs for every request that reached the chain, also when it failed or was cancelled (Moya calls
/// nothing then). Errors thrown before the chain, while preparing the request, never reach middleware.
public protocol HookMiddleware: Middleware {
    /// Changes the request before it is sent. Throwing stops the call.
    func prepare(_ request: URLRequest, context: TransportContext) async throws -> URLRequest
    /// Observes the request that is about to be sent.
    func willSend(_ request: URLRequest, context: TransportContext) async
    /// Observes the outcome: the response, whatever its status, or the error.
    func didReceive(_ result: Result<Response, NALError>, context: TransportContext) async
    /// Changes the outcome before the Client (and outer middleware) see it.
    func process(_ result: Result<Response, NALError>, context: TransportContext) async -> Result<Response, NALError>
}

extension HookMiddleware {
    /// Returns `request` unchanged.
    public func prepare(_ request: URLRequest, context: TransportContext) async throws -> URLRequest { request }
    /// Does nothing.
    public func willSend(_ request: URLRequest, context: TransportContext) async {}
    /// Does nothing.
    public func didReceive(_ result: Result<Response, NALError>, context: TransportContext) async {}
    /// Returns `result` unchanged.
    public func process(
        _ result: Result<Response, NALError>, context: TransportContext
    ) async
        -> Result<Response, NALError>
    { result }

    /// Runs the hooks around `next`: prepare, willSend, send, didReceive, process.
    public func intercept(
        _ request: URLRequest, context: TransportContext,
        next: @Sendable (URLRequest, TransportContext) async throws -> Response
    ) async throws -> Response {
        let prepared = try await prepare(request, context: context)
        await willSend(prepared, context: context)
        let result: Result<Response, NALError>
        do {
            result = .success(try await next(prepared, context))
        } catch let error as NALError {
            result = .failure(error)
        } catch is CancellationError {
            result = .failure(.cancelled)
        } catch {
            result = .failure(.middlewareFailed(middleware: "next", underlying: error))
        }
        await didReceive(result, context: context)
        return try await process(result, context: context).get()
    }
}
