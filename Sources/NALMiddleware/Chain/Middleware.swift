public import NALCore

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// Code that runs around every request a `Client` sends: it sees the prepared request and its context first, and the
/// response (or error) last.
///
/// ```swift
/// struct RequestID: Middleware {
///     func intercept(
///         _ request: URLRequest, context: TransportContext,
///         next: @Sendable (URLRequest, TransportContext) async throws -> Response
///     ) async throws -> Response {
///         var request = request
///         request.setValue(UUID().uuidString, forHTTPHeaderField: "X-Request-ID")
///         return try await next(request, context)
///     }
/// }
/// ```
///
/// `intercept` may call `next` zero times (answer from a cache, short-circuit), once, or several times (retry,
/// token refresh). It may throw any error: an `NALError` passes through unchanged, and anything else becomes
/// `NALError.middlewareFailed`, naming this middleware's type. Middleware sees every response as the server sent it:
/// validation runs in the Client after the whole chain has returned, so a 404 arrives here as a `Response`.
public protocol Middleware: Sendable {
    /// Handles one request: change it, send it on with `next`, and return (or change) the response.
    func intercept(
        _ request: URLRequest, context: TransportContext,
        next: @Sendable (URLRequest, TransportContext) async throws -> Response
    ) async throws -> Response
}
